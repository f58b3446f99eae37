"""A visitor reads the interview bank, with JavaScript on and off: from the home page to the
bank, a search for "KV cache", a question opened and its model answer read, signed out. Every
page passes check_page (axe-core, 375 px wide, nothing from elsewhere, the script budget)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from quizzes.models import Question
from tests.browser.conftest import PHONE, check_page, screenshot

pytestmark = pytest.mark.django_db(transaction=True)

MODES = pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])


@MODES
def test_a_visitor_searches_the_bank_and_reads_a_model_answer(open_browser, course, javascript):
    v = open_browser(javascript=javascript)

    v.go("/")
    v.page.get_by_role("link", name="Interviews").first.click()
    expect(v.page.get_by_role("heading", level=1)).to_have_text("Interview questions")
    total = Question.objects.interview_bank().count()
    expect(v.page.locator(".lede")).to_contain_text(f"{total} questions")
    if javascript:
        screenshot(v.page, "interview-index")
    check_page(v)

    v.page.get_by_label("Search the questions").fill("KV cache")
    v.page.get_by_role("button", name="Search").click()
    results = v.page.get_by_role("heading", level=2).first
    expect(results).to_contain_text("for “KV cache”")
    first = v.page.locator(".bank-row__title a").first
    title = first.inner_text()
    assert "cache" in (title + first.get_attribute("href")).lower()
    check_page(v)

    href = first.get_attribute("href")
    first.click()
    assert v.page.url.endswith(href)
    # The heading is the question as the link showed it (its formulas typeset alike).
    opening = " ".join(title.split())[:40]
    expect(v.page.get_by_role("heading", level=1)).to_contain_text(opening)
    expect(v.page.get_by_role("heading", name="Model answer")).to_be_visible()
    expect(v.page.get_by_role("heading", name="What the interviewer listens for")).to_be_visible()
    key = v.page.url.rstrip("/").rsplit("/", 1)[1]
    question = Question.objects.select_related("entry").get(key=key)
    assert question.entry.key_points[0] in v.page.locator("main").inner_text()
    if javascript:
        screenshot(v.page, "interview-question")
    check_page(v)

    v.page.get_by_role("link", name=f"{question.category.title} interview questions").click()
    expect(v.page.get_by_role("heading", level=1)).to_have_text(question.category.title)
    v.page.get_by_role("link", name="Senior (").click()
    levels = v.page.locator(".bank-row__eyebrow .tag").all_inner_texts()
    assert levels
    assert set(levels) == {"Senior"}
    check_page(v)


def test_the_bank_reads_on_a_phone(open_browser, course):
    v = open_browser(viewport=PHONE)
    question = Question.objects.interview_bank().filter(entry__diagram__gt="").first()
    assert question is not None, "some question shows a diagram"

    v.go(f"/interview/q/{question.key}/")
    expect(v.page.get_by_role("heading", name="Model answer")).to_be_visible()
    screenshot(v.page, "interview-question-phone")
    check_page(v)
