"""Getting Pro in a browser, with JavaScript on and off: a free learner redeems a licence code
on the plans page and reads the Pro lesson; the code does not work twice; a learner holding a
class's Pro seat loses it on leaving. Every page passes check_page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts import licences
from accounts.models import LicenceCode
from classrooms import services as classroom_services
from classrooms.models import Classroom
from course.models import Course
from tests.browser.conftest import PHONE, check_page, screenshot
from tests.browser.test_lesson import MODES, PRO_SENTENCE, sign_in
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PRO_LESSON = "/courses/transformers/block-anatomy/"


def a_code(days: int = 30) -> LicenceCode:
    batch = licences.batch_create(
        name="Hillside School",
        days=days,
        expires_at=timezone.now() + timedelta(days=60),
        count=2,
        created_by=None,
    )
    code = LicenceCode.objects.filter(batch=batch).first()
    assert code is not None
    return code


@MODES
def test_a_free_learner_redeems_a_code_and_reads_the_pro_lesson(open_browser, course, javascript):
    browse = open_browser(javascript=javascript)
    learner = UserFactory(timezone="Europe/Paris")
    sign_in(browse, learner)
    code = a_code(days=30)
    page = browse.page

    browse.go("/plans/")
    check_page(browse)
    expect(page.get_by_text("Billing is not set up on this site")).to_be_visible()
    page.get_by_label("Licence code").fill(code.grouped.lower())
    page.get_by_role("button", name="Redeem").click()

    expect(page.get_by_role("heading", name="You have Pro")).to_be_visible()
    expect(page.get_by_text("The code gave you 30 days of Pro")).to_be_visible()
    assert "From a licence code (Hillside School)" in page.locator("main").inner_text()
    check_page(browse)
    if javascript:
        screenshot(page, "plans-pro")

    browse.go(PRO_LESSON)
    assert PRO_SENTENCE in page.content()
    assert page.locator(".pro-panel").count() == 0

    # The same code again, by the same learner: refused next to the field, nothing changes.
    browse.go("/plans/")
    page.get_by_label("Licence code").fill(code.code)
    page.get_by_role("button", name="Redeem").click()
    expect(page.locator("#id_code_error")).to_contain_text("This code has been used already")
    check_page(browse)

    # And by another learner: still refused, and they stay on Free.
    other = open_browser(javascript=javascript, viewport=PHONE)
    sign_in(other, UserFactory())
    other.go("/plans/")
    other.page.get_by_label("Licence code").fill(code.code)
    other.page.get_by_role("button", name="Redeem").click()
    expect(other.page.locator("#id_code_error")).to_contain_text("used already")
    check_page(other)
    if not javascript:
        screenshot(other.page, "plans-refused-phone")
    other.go(PRO_LESSON)
    assert PRO_SENTENCE not in other.page.content()


def test_a_learner_who_leaves_a_class_with_seats_loses_its_pro(open_browser, course):
    browse = open_browser()
    teacher, learner = UserFactory(), UserFactory()
    classroom = Classroom.objects.create(
        name="Year 12", course=Course.objects.get(slug="transformers"), teacher=teacher
    )
    classroom_services.classroom_set_seats(classroom=classroom, pro_seats=5)
    classroom_services.classroom_join(user=learner, join_code=classroom.join_code)
    sign_in(browse, learner)
    page = browse.page

    browse.go("/plans/")
    assert "From a seat in your class: while it lasts." in page.locator("main").inner_text()
    browse.go(PRO_LESSON)
    assert PRO_SENTENCE in page.content()

    classroom_services.classroom_leave(classroom=classroom, user=learner)

    browse.go(PRO_LESSON)
    assert PRO_SENTENCE not in page.content()
    expect(page.locator(".pro-panel")).to_be_visible()
    browse.go("/plans/")
    expect(page.get_by_text("Your Pro ended on")).to_be_visible()
    check_page(browse)
