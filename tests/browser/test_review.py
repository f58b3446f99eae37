"""Reviewing, practising and checking in a browser: five cards by keyboard alone (a generated
one among them, and an undo) then the summary; the same with JavaScript off by the buttons; a
lesson's check question answered wrong, then right; a generated question practised twice."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from quizzes.models import Question
from reviews.models import Answer
from tests.browser.conftest import check_page, screenshot
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in(open_browser, *, javascript=True, viewport=None):
    user = UserFactory()
    client = Client()
    client.force_login(user)
    browse = open_browser(javascript=javascript, viewport=viewport)
    browse.page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": browse.site}]
    )
    return browse, user


def card_kind(page):
    card = page.locator("#review-card")
    if card.locator("textarea").count():
        return "free_text"
    if card.locator("input[type=radio], input[type=checkbox]").count():
        return "choice"
    return "numeric"


def answer_by_keyboard(page):
    """Answers the card shown with keys only; returns its kind."""
    kind = card_kind(page)
    keyboard = page.keyboard
    if kind == "numeric":
        page.locator("#review-card input[name=response]").focus()  # autofocused on load
        keyboard.type("1")
        keyboard.press("Enter")
    elif kind == "choice":
        keyboard.press("1")
        keyboard.press("Enter")
    else:
        page.locator("#review-card textarea").focus()
        keyboard.type("What I remember")
        keyboard.press("Tab")
        keyboard.press("Enter")
        page.get_by_text("How well did your answer match?").wait_for()
        keyboard.press("3")
    page.locator("#review-card .feedback").wait_for()
    return kind


def test_five_cards_reviewed_with_the_keyboard_alone(open_browser, course):
    browse, user = signed_in(open_browser)
    page = browse.page
    browse.go("/review/")
    check_page(browse)
    screenshot(page, "review-card")
    generated = Question.objects.exclude(generator="").values_list("pk", flat=True)

    kinds = []
    for number in range(5):
        kinds.append(answer_by_keyboard(page))
        if number == 0:
            screenshot(page, "review-feedback")
            page.keyboard.press("z")  # undo the first answer: its card comes back
            page.get_by_text("Your last answer was taken back").wait_for()
            kinds.append(answer_by_keyboard(page))
        page.keyboard.press("Space")  # next
        page.locator("#review-card .question--ask").wait_for()

    reviews = Answer.objects.filter(user=user, mode="review")
    assert reviews.count() == 5
    assert reviews.filter(question_id__in=list(generated)).exists()
    assert "numeric" in kinds
    assert "5 done" in page.locator(".review__progress").inner_text()
    page.get_by_role("link", name="End session").click()
    page.get_by_role("heading", level=1).wait_for()
    assert "Answered" in page.locator(".figures").inner_text()
    assert "5" in page.locator(".figures").inner_text()
    check_page(browse)
    screenshot(page, "review-summary")


def answer_by_buttons(page):
    card = page.locator("#review-card")
    kind = card_kind(page)
    if kind == "numeric":
        card.locator("input[name=response]").fill("1")
        card.get_by_role("button", name="Check").click()
    elif kind == "choice":
        card.locator("input[type=radio], input[type=checkbox]").first.check()
        card.get_by_role("button", name="Check").click()
    else:
        card.locator("textarea").fill("What I remember")
        card.get_by_role("button", name="Show the model answer").click()
        page.get_by_role("button", name="Good").click()
    page.locator("#review-card .feedback").wait_for()


def test_five_cards_reviewed_with_javascript_off(open_browser, course):
    browse, user = signed_in(open_browser, javascript=False)
    page = browse.page
    browse.go("/review/")

    for number in range(5):
        answer_by_buttons(page)
        assert re.search(r"\?answer=\d+", page.url)
        if number == 0:
            check_page(browse)
            page.get_by_role("button", name="Undo last answer").click()
            assert "taken back" in page.locator("main").inner_text()
            answer_by_buttons(page)
        page.get_by_role("link", name="Next").click()

    assert Answer.objects.filter(user=user, mode="review").count() == 5
    page.get_by_role("link", name="End session").click()
    assert "Answered" in page.locator(".figures").inner_text()
    check_page(browse)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_a_lesson_check_answered_wrong_then_right(open_browser, course, javascript):
    browse, user = signed_in(open_browser, javascript=javascript)
    page = browse.page
    question = Question.objects.get(key="neuron-parameter-count")
    browse.go(f"/courses/{question.lesson.course.slug}/{question.lesson.slug}/")
    slot = page.locator(f"#question-{question.pk}")

    slot.locator("input[name=response]").fill("768")
    slot.get_by_role("button", name="Check").click()
    slot = page.locator(f"#question-{question.pk}")
    slot.locator(".feedback").wait_for()
    assert "Not quite: That counts the weights only" in slot.locator(".feedback").inner_text()
    if not javascript:
        assert page.url.endswith(f"#question-{question.pk}")
    check_page(browse)
    screenshot(page, f"lesson-check-wrong-{'js' if javascript else 'nojs'}")

    browse.go(f"/courses/{question.lesson.course.slug}/{question.lesson.slug}/")
    slot = page.locator(f"#question-{question.pk}")
    slot.locator("input[name=response]").fill("769")
    slot.get_by_role("button", name="Check").click()
    page.locator(f"#question-{question.pk} .feedback").wait_for()

    assert "Right." in page.locator(f"#question-{question.pk} .feedback").inner_text()
    assert list(Answer.objects.filter(user=user).order_by("pk").values_list("status", "mode")) == [
        ("incorrect", "practice"),
        ("correct", "practice"),
    ]


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_a_generated_question_practised_twice(open_browser, course, javascript):
    browse, user = signed_in(
        open_browser, javascript=javascript, viewport={"width": 375, "height": 812}
    )
    page = browse.page
    question = Question.objects.get(key="neuron-relu-by-hand")
    browse.go("/practice/")
    check_page(browse)
    page.get_by_role("link", name=re.compile(question.lesson.title)).first.click()
    browse.go(f"/practice/lessons/{question.lesson.slug}/?question={question.pk}")
    first_prompt = page.locator(".question__prompt").inner_text()

    page.locator("input[name=response]").fill("0")
    page.get_by_role("button", name="Check").click()
    page.locator(".feedback").wait_for()
    check_page(browse)
    page.get_by_role("link", name="Another one").click()
    page.locator(".question--ask").wait_for()
    page.locator("input[name=response]").fill("0")
    page.get_by_role("button", name="Check").click()
    page.locator(".feedback").wait_for()

    answers = Answer.objects.filter(user=user, question=question)
    assert list(answers.values_list("mode", flat=True)) == ["practice", "practice"]
    assert len(set(answers.values_list("variant_seed", flat=True))) == 2
    assert first_prompt
    if javascript:
        screenshot(page, "practice-feedback-phone")
