"""A coding question in a browser, with JavaScript on and off, on a live worker of the `code`
queue: from the question's page to the editor (Tab indents), the examples run, a wrong
submission's failing case named, a right one's ten tests passed with the model solution, and
the question scheduled. Every page passes check_page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from quizzes.models import Question
from reviews.models import Card, CodeSubmission
from tests.browser.conftest import PHONE, check_page, screenshot
from tests.browser.test_review import signed_in
from tests.integration.test_code_worker import code_worker  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)

MODES = pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])

RIGHT = """import numpy as np


def softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)
"""


def results_when_done(browse):
    """The results section once its run has ended (htmx asks again by itself; without
    JavaScript, the learner presses "Check again")."""
    page = browse.page
    results = page.locator("#results")
    for _ in range(120):
        text = results.inner_text()
        if "Waiting for a worker" not in text and "Running:" not in text:
            break
        if browse.javascript:
            page.wait_for_timeout(250)
        else:
            page.get_by_role("button", name="Check again").click()
    expect(results).not_to_contain_text("Waiting for a worker")
    expect(results).not_to_contain_text("Running:")
    return results


@MODES
def test_a_learner_codes_a_question_runs_its_examples_and_submits_it(
    open_browser,
    course,
    code_worker,  # noqa: F811
    javascript,
):
    browse, user = signed_in(open_browser, javascript=javascript)
    page = browse.page
    question = Question.objects.get(key="coding-stable-softmax")

    browse.go(f"/interview/q/{question.key}/")
    expect(page.get_by_role("heading", name="The function")).to_be_visible()
    check_page(browse)
    page.get_by_role("link", name="Practise it first").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Code it")
    editor = page.get_by_label("Your code")
    expect(editor).to_have_value(question.entry.code_starter)
    check_page(browse)
    if javascript:
        screenshot(page, "code-editor")
        # Tab indents by four spaces in the editor instead of leaving it.
        editor.fill("def f(x):")
        editor.press("End")
        editor.press("Enter")
        expect(editor).to_have_value("def f(x):\n    ")
        editor.press("Tab")
        expect(editor).to_have_value("def f(x):\n        ")
        expect(editor).to_be_focused()

    # The examples first, with a mistake the examples do not catch.
    editor.fill(RIGHT.replace("x - x.max(axis=-1, keepdims=True)", "x"))
    page.get_by_role("button", name="Run the examples").click()
    results = results_when_done(browse)
    expect(results).to_contain_text("2 of 2 tests passed.")
    expect(results).to_contain_text("Examples only: submit to run the hidden tests.")

    # Submitted, the hidden cases catch it, and name the case.
    page.get_by_role("button", name="Submit").click()
    results = results_when_done(browse)
    expect(results).to_contain_text(re.compile(r"[0-9] of 10 tests passed\."))
    expect(results.locator(".code-test--failed").first).to_contain_text("Hidden")
    expect(results.locator(".code-test--failed").first).to_contain_text("logits up to ±")
    check_page(browse)
    if javascript:
        screenshot(page, "code-results-failed")

    # Put right, every test passes and the model solution opens.
    page.get_by_label("Your code").fill(RIGHT)
    page.get_by_role("button", name="Submit").click()
    results = results_when_done(browse)
    expect(results).to_contain_text("10 of 10 tests passed.")
    expect(results).to_contain_text("You will see this question again")
    page.get_by_text("The model solution").click()
    expect(results.locator(".code-solution pre")).to_contain_text("def softmax(x):")
    check_page(browse)
    if javascript:
        screenshot(page, "code-results-passed")

    submissions = CodeSubmission.objects.filter(user=user).order_by("pk")
    assert [s.run for s in submissions] == ["examples", "submit", "submit"]
    assert [s.status for s in submissions] == ["done", "done", "done"]
    assert Card.objects.get(user=user, question=question).reps == 2


def test_the_editor_fits_a_phone(open_browser, course):
    browse, _ = signed_in(open_browser, viewport=PHONE)

    browse.go("/interview/q/attention-implement-causal-mha/practice/")

    expect(browse.page.get_by_label("Your code")).to_be_visible()
    screenshot(browse.page, "code-editor-phone")
    check_page(browse)
