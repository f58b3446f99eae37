"""A learner's first visit, end to end, as the issue lays it out: sign up; read lesson 1 and
answer its check question wrong (the mistake named), then right; open the Pro lesson as a free
learner; review five cards (with the keyboard alone when JavaScript runs), a generated one and
an undo among them; report a mistake; change the time zone; see the stats; sign out. With
JavaScript off the same journey, by forms and links, leaves the database in the same state."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.models import User
from course.models import Report
from quizzes.models import Question
from reviews.models import Answer, Card, Reveal
from tests.browser.conftest import check_page, screenshot
from tests.browser.test_review import answer_by_buttons, answer_by_keyboard

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long and unusual passphrase 42"


def journey(browse, username: str) -> None:
    page = browse.page
    js = browse.javascript

    # Sign up.
    browse.go("/")
    check_page(browse)
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Today")
    check_page(browse)

    # Lesson 1, its check question wrong (the slip named), then right.
    question = Question.objects.get(key="neuron-parameter-count")
    page.get_by_role("link", name=re.compile(question.lesson.title)).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(question.lesson.title)
    check_page(browse)
    slot = page.locator(f"#question-{question.pk}")
    slot.locator("input[name=response]").fill("768")
    slot.get_by_role("button", name="Check").click()
    feedback = page.locator(f"#question-{question.pk} .feedback")
    expect(feedback).to_contain_text("Not quite: That counts the weights only")
    check_page(browse)
    if not page.locator(f"#question-{question.pk} input[name=response]").count():
        browse.go(f"/courses/{question.lesson.course.slug}/{question.lesson.slug}/")
    slot = page.locator(f"#question-{question.pk}")
    slot.locator("input[name=response]").fill("769")
    slot.get_by_role("button", name="Check").click()
    expect(page.locator(f"#question-{question.pk} .feedback")).to_contain_text("Right.")

    # The Pro lesson as a free learner: the free sections, then the panel; no Pro body.
    browse.go("/courses/transformers/block-anatomy/")
    panel = page.get_by_role("heading", name="The rest of this lesson is part of Pro")
    expect(panel).to_be_visible()
    check_page(browse)
    pro_bodies = [
        s.body_markdown[:60]
        for s in question.lesson.course.lessons.get(slug="block-anatomy").sections.all()
        if s.access == "pro"
    ]
    html = page.content()
    assert pro_bodies
    assert not any(body in html for body in pro_bodies)

    # Review five cards; the first is answered, taken back with undo, and answered again.
    page.get_by_role("link", name="Review", exact=True).click()
    expect(page.locator("#review-card")).to_be_visible()
    check_page(browse)
    for number in range(5):
        if js:
            answer_by_keyboard(page)
        else:
            answer_by_buttons(page)
        if number == 0:
            if js:
                page.keyboard.press("z")
            else:
                page.get_by_role("button", name="Undo last answer").click()
            expect(page.locator("main")).to_contain_text("taken back")
            answer_by_keyboard(page) if js else answer_by_buttons(page)
        if js:
            page.keyboard.press("Space")
            page.locator("#review-card .question--ask").wait_for()
        else:
            page.get_by_role("link", name="Next").click()
    if js:
        screenshot(page, "review")

    # Report a mistake from a section of lesson 1.
    browse.go("/courses/transformers/neurons/")
    page.locator("#bias-and-bend").get_by_role("link", name=re.compile("Report it in")).click()
    page.get_by_label("What is wrong?").fill("The threshold reads as b; should it be −b?")
    page.get_by_role("button", name="Send the report").click()
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    check_page(browse)

    # The time zone.
    page.get_by_role("link", name="Settings").click()
    page.get_by_label("Time zone").select_option("Asia/Tokyo")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator(".messages")).to_contain_text("Your settings are saved.")

    # The stats, then sign out.
    page.get_by_role("link", name="Stats").click()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    check_page(browse)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in").first).to_be_visible()


def state(username: str) -> dict:
    """What the journey leaves in the database, in terms that do not depend on ids, times or
    the variant a generated card happened to draw."""
    user = User.objects.get(username=username)
    answers = Answer.objects.filter(user=user).order_by("pk")
    return {
        # Whether a typed 1 is right for a generated card depends on its variant: its status is
        # left out.
        "answers": [
            (a.question.key, a.mode, "drawn" if a.question.generator else a.status)
            for a in answers.select_related("question")
            if a.mode == "practice"
        ],
        "reviews": answers.filter(mode="review").count(),
        "generated reviews": answers.filter(mode="review").exclude(question__generator="").count(),
        "cards reviewed": Card.objects.filter(user=user).exclude(state="new").count(),
        "reveals": Reveal.objects.filter(user=user).count(),
        "reports": list(Report.objects.filter(user=user).values_list("lesson__slug", flat=True)),
        "timezone": user.timezone,
    }


def test_the_journey_with_and_without_javascript_ends_in_the_same_state(open_browser, course):
    journey(open_browser(javascript=True), "ada")
    journey(open_browser(javascript=False), "grace")

    with_js, without_js = state("ada"), state("grace")
    # Which cards the five reviews reach depends on the variants drawn (an answer of 1 is
    # right for some, and a right answer moves its card on): each journey reaches some.
    for reached in (with_js, without_js):
        assert reached.pop("cards reviewed") >= 1
        assert reached.pop("generated reviews") >= 1
    assert with_js == without_js
    checks = [a for a in with_js["answers"] if a[0] == "neuron-parameter-count"]
    assert checks == [
        ("neuron-parameter-count", "practice", "incorrect"),
        ("neuron-parameter-count", "practice", "correct"),
    ]
    assert len(with_js["answers"]) == 3  # and the review answer taken back, kept as practice
    assert with_js["reviews"] == 5
    assert with_js["reports"] == ["neurons"]
    assert with_js["timezone"] == "Asia/Tokyo"
