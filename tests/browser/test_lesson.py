"""The course and its lessons in a browser, with JavaScript on and off: a visitor reads lesson 1,
a free learner opens the Pro lesson, glossary cards open by keyboard and by click, a learner
marks a lesson complete and reports a mistake; every page passes check_page, every shipped
lesson at phone width."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from accounts.models import User
from course.models import Lesson, Report
from tests.browser.conftest import PHONE, check_page, screenshot
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

MODES = pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
PRO_SENTENCE = "Neither sublayer overwrites the vector it reads."


def sign_in(browse, user: User) -> None:
    client = Client()
    client.force_login(user)
    browse.page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": browse.site,
            }
        ]
    )


@MODES
def test_a_visitor_reads_lesson_one(open_browser, course, javascript):
    browse = open_browser(javascript=javascript)

    browse.go("/courses/transformers/")
    browse.page.get_by_role("link", name="One neuron: weigh, add, bend", exact=True).click()

    page = browse.page
    assert page.url.endswith("/courses/transformers/neurons/")
    assert page.get_by_role("heading", level=1).inner_text() == "One neuron: weigh, add, bend"
    assert page.get_by_role("heading", name="Weigh and add").is_visible()
    assert page.locator("math").count() > 0
    assert page.get_by_role("link", name="Sign in", exact=True).count() >= 1
    check_page(browse)
    if javascript:  # the same page either way
        screenshot(page, "lesson-visitor")


@MODES
def test_a_free_learner_reads_the_free_part_of_the_pro_lesson(open_browser, course, javascript):
    browse = open_browser(javascript=javascript)
    sign_in(browse, UserFactory())

    browse.go("/courses/transformers/block-anatomy/")

    page = browse.page
    assert page.get_by_role("heading", name="One block, four parts").is_visible()
    assert page.get_by_role("heading", name="Attention collects, the MLP works token by token")
    panel = page.locator(".pro-panel")
    assert "The rest of this lesson is part of Pro" in panel.inner_text()
    assert "Add, don't replace" in panel.inner_text()
    assert "The block, stacked" in panel.inner_text()
    assert PRO_SENTENCE not in page.content()
    assert page.get_by_role("button", name="Mark complete").count() == 0
    check_page(browse)
    if javascript:  # the same page either way
        screenshot(page, "lesson-pro-panel")
    panel.get_by_role("link", name="What Pro is and how to get it").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Free and Pro"
    assert "Add, don't replace" in page.locator("main").inner_text()
    check_page(browse)


@MODES
def test_a_glossary_card_opens_by_keyboard_and_by_click(open_browser, course, javascript):
    browse = open_browser(javascript=javascript)
    browse.go("/courses/transformers/neurons/")
    page = browse.page

    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('button.term')"):
            break
    term = page.locator("button.term:focus")
    card = page.locator("#" + term.get_attribute("popovertarget"))
    assert not card.is_visible()
    page.keyboard.press("Enter")

    assert card.is_visible()
    assert card.evaluate("card => card.matches(':popover-open')")
    page.keyboard.press("Escape")
    assert not card.is_visible()

    term.click()
    assert card.is_visible()
    check_page(browse)
    card.get_by_role("button", name="Close").click()
    assert not card.is_visible()
    entry = page.locator("#glossary-" + card.get_attribute("id").removeprefix("term-"))
    assert entry.count() == 1, "the glossary at the end has the same definition"


@MODES
def test_a_learner_marks_a_lesson_complete(open_browser, course, javascript):
    learner = UserFactory()
    browse = open_browser(javascript=javascript)
    sign_in(browse, learner)
    browse.go("/courses/transformers/neurons/")
    page = browse.page

    page.get_by_role("button", name="Mark complete").click()

    expect(page.get_by_text("You completed this lesson.")).to_be_visible()
    assert learner.lesson_progress.get().completed_at is not None
    browse.go("/courses/transformers/")
    assert "1 of 9 lessons done" in page.locator("main").inner_text()
    check_page(browse)
    if javascript:  # the same page either way
        screenshot(page, "course-learner")


@MODES
def test_a_learner_reports_a_mistake_from_a_section(open_browser, course, javascript):
    learner = UserFactory()
    browse = open_browser(javascript=javascript)
    sign_in(browse, learner)
    browse.go("/courses/transformers/neurons/")
    page = browse.page

    page.locator("#bias-and-bend").get_by_role("link", name=re.compile("Report it in")).click()
    assert "section “The bias and the bend”" in page.locator(".report__about").inner_text()
    check_page(browse)
    page.get_by_role("button", name="Send the report").click()
    expect(page.get_by_text("Write what you noticed before sending.").first).to_be_visible()
    check_page(browse)
    page.get_by_label("What is wrong?").fill("The threshold should be −b, not b.")
    page.get_by_role("button", name="Send the report").click()

    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    check_page(browse)
    report = Report.objects.get(user=learner)
    assert report.lesson.slug == "neurons"
    assert report.message.endswith("The threshold should be −b, not b.")
    assert "bias-and-bend" in report.message
    page.get_by_role("link", name="Back to the lesson").click()
    assert page.url.endswith("/courses/transformers/neurons/#bias-and-bend")


def test_every_shipped_lesson_passes_the_checks_at_phone_width(open_browser, course):
    browse = open_browser(viewport=PHONE)
    sign_in(browse, UserFactory(plan=User.Plan.PRO))
    slugs = list(Lesson.objects.order_by("number").values_list("slug", flat=True))
    assert len(slugs) == 9

    for slug in slugs:
        response = browse.go(f"/courses/transformers/{slug}/")
        assert response.status == 200, slug
        check_page(browse)
    browse.go("/courses/transformers/attention/")
    screenshot(browse.page, "lesson-phone")


@MODES
def test_the_course_and_plans_pages_pass_the_checks(open_browser, course, javascript):
    browse = open_browser(javascript=javascript)

    browse.go("/courses/transformers/")
    check_page(browse)
    browse.go("/plans/")
    check_page(browse)
    if javascript:  # the same page either way
        screenshot(browse.page, "plans")


def test_the_lesson_page_for_the_readme(open_browser, course):
    browse = open_browser()
    sign_in(browse, UserFactory(plan=User.Plan.PRO))

    browse.go("/courses/transformers/attention/")

    check_page(browse)
    screenshot(browse.page, "lesson")
