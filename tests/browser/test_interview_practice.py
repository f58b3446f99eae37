"""Practising for an interview in a browser, with JavaScript on and off: a learner runs a
three-question mock interview from the bank's page to its summary, with every question
scheduled; and practises one question from its page, ticking its key points and moving the
suggested rating a step. Every page passes check_page (axe-core, 375 px wide, nothing from
elsewhere, the script budget)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from quizzes.models import Question
from reviews.models import Answer, Card, MockInterview
from tests.browser.conftest import PHONE, check_page, screenshot
from tests.browser.test_review import signed_in

pytestmark = pytest.mark.django_db(transaction=True)

MODES = pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])


def answer_mock_question(browse, number: int) -> str:
    """Answers the mock's question on the page: in words (ticking the first key points), or
    with a number. Returns the question's kind."""
    page, card = browse.page, browse.page.locator("#mock-card")
    expect(card.locator(".review__where")).to_contain_text(f"Question {number} of 3")
    if browse.javascript:
        expect(card.get_by_role("timer")).to_have_text(re.compile(r"^\d+:\d\d$"))
    if card.locator("textarea").count():
        if number == 2:
            card.get_by_role("button", name="I said it out loud: show the model answer").click()
        else:
            card.locator("textarea").fill("Attention mixes positions; the MLP works per token.")
            card.get_by_role("button", name="Show the model answer", exact=True).click()
        expect(card.get_by_text("Which key points did your answer cover?")).to_be_visible()
        if number == 1:
            check_page(browse)
            if browse.javascript:
                screenshot(page, "mock-key-points")
        boxes = card.locator("input[name=covered]")
        for index in range(min(2, boxes.count())):
            boxes.nth(index).check()
        if browse.javascript:
            expect(card.locator("[data-suggestion]")).to_contain_text(
                f"2 of {boxes.count()} covered: that suggests"
            )
        card.get_by_role("button", name="Rate my answer").click()
        expect(card.locator(".key-points-done")).to_contain_text("You covered 2 of")
        return "free_text"
    card.get_by_label("Your answer").fill("1000")
    card.get_by_role("button", name="Check").click()
    expect(card.locator(".feedback")).to_be_visible()
    return "numeric"


@MODES
def test_a_learner_runs_a_three_question_mock_interview(open_browser, course, javascript):
    browse, user = signed_in(open_browser, javascript=javascript)
    page = browse.page

    browse.go("/interview/")
    page.get_by_role("link", name="Run a mock interview").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Mock interview")
    check_page(browse)
    page.get_by_label("Attention", exact=True).check()
    page.get_by_label("Junior").check()
    page.get_by_label("3 questions, about 10 minutes").check()
    if javascript:
        screenshot(page, "mock-choose")
    page.get_by_role("button", name="Start the interview").click()

    mock = MockInterview.objects.get(user=user)
    asked = list(mock.questions.values_list("question__category__slug", "question__level"))
    assert asked == [("attention", "junior")] * 3
    kinds = []
    for number in (1, 2, 3):
        if number == 1:
            check_page(browse)
            if javascript:
                screenshot(page, "mock-question")
        kinds.append(answer_mock_question(browse, number))
        if number == 1:
            check_page(browse)
        link = "See the summary" if number == 3 else "Next question"
        page.get_by_role("link", name=link).click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Mock interview: summary")
    expect(page.locator(".lede")).to_contain_text("3 of 3 questions answered")
    expect(page.get_by_role("heading", name="By category, weakest first")).to_be_visible()
    expect(page.get_by_role("row", name=re.compile(r"^Attention 3 "))).to_be_visible()
    if "free_text" in kinds:
        expect(page.get_by_role("heading", name="The key points you missed")).to_be_visible()
    expect(page.get_by_text("Back for review")).to_have_count(3)
    check_page(browse)
    screenshot(page, "mock-summary" if javascript else "mock-summary-nojs")
    page.set_viewport_size(PHONE)
    if javascript:
        screenshot(page, "mock-summary-phone")

    questions = [q for (q,) in mock.questions.values_list("question_id")]
    cards = Card.objects.filter(user=user, question_id__in=questions)
    assert cards.count() == 3
    assert all(card.reps == 1 and card.lesson_id is None for card in cards)
    mock.refresh_from_db()
    assert mock.finished_at is not None


@MODES
def test_a_learner_practises_a_question_from_its_page(open_browser, course, javascript):
    browse, user = signed_in(open_browser, javascript=javascript)
    page = browse.page
    question = (
        Question.objects.interview_bank()
        .filter(kind=Question.Kind.FREE_TEXT, category__slug="inference")
        .select_related("entry")
        .order_by("position")
        .first()
    )
    points = question.entry.key_points

    browse.go(f"/interview/q/{question.key}/")
    page.get_by_role("link", name="Practise it first").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Practise an interview question")
    expect(page.locator("main")).not_to_contain_text(points[0])
    check_page(browse)
    page.get_by_label("Your answer").fill("The cache keeps each layer's keys and values.")
    page.get_by_role("button", name="Show the model answer", exact=True).click()
    expect(page.get_by_text("What you wrote")).to_be_visible()
    if javascript:
        # Nothing ticked yet: Again, which has no step below it.
        expect(page.locator("[data-suggestion]")).to_have_text(
            f"0 of {len(points)} covered: that suggests Again."
        )
        expect(page.get_by_label("Again (suggested)")).to_be_checked()
        expect(page.locator("input[name=adjust][value=lower]")).to_be_hidden()
    for point in points:
        page.get_by_label(point).check()
    if javascript:
        expect(page.locator("[data-suggestion]")).to_have_text(
            f"{len(points)} of {len(points)} covered: that suggests Good."
        )
        expect(page.get_by_label("Good (suggested)")).to_be_checked()
        page.get_by_label("Easy").check()
        screenshot(page, "interview-practice-key-points")
    else:
        page.get_by_label("One step higher").check()
    check_page(browse)
    page.get_by_role("button", name="Rate my answer").click()

    expect(page.locator(".key-points-done")).to_contain_text(
        f"You covered {len(points)} of {len(points)} key points, which suggests Good; "
        "you rated it Easy."
    )
    expect(page.get_by_text("You will see this question again")).to_be_visible()
    check_page(browse)
    if javascript:
        screenshot(page, "interview-practice-done")
    answer = Answer.objects.get(user=user)
    assert (answer.self_rating, answer.covered_key_points) == ("easy", list(range(len(points))))
    card = Card.objects.get(user=user, question=question)
    assert card.state != "new"


def test_the_practice_page_reads_on_a_phone(open_browser, course):
    browse, _ = signed_in(open_browser, viewport=PHONE)
    question = Question.objects.interview_bank().filter(kind=Question.Kind.FREE_TEXT).first()

    browse.go(f"/interview/q/{question.key}/practice/")
    browse.page.get_by_role("button", name="Show the model answer", exact=True).click()
    expect(browse.page.get_by_text("Which key points did your answer cover?")).to_be_visible()

    screenshot(browse.page, "interview-practice-phone")
    check_page(browse)
