"""A teacher's journey in a browser, with JavaScript on and off: a class made, joined by a
learner from its link in another browser, an assignment set and done, the progress seen and
downloaded, the learner removed; and nobody else sees any of it. Every page passes check_page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import expect

from classrooms.models import Classroom, Membership
from course.models import Lesson, Report
from reviews.models import Answer
from tests.browser.conftest import check_page, screenshot
from tests.browser.test_review import answer_by_buttons
from tests.factories import ClassroomFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

MODES = pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])


def signed_in(browse, user) -> None:
    client = Client()
    client.force_login(user)
    browse.page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": browse.site}]
    )


def main_text(browse) -> str:
    return browse.page.locator("main").inner_text()


@MODES
def test_a_teacher_runs_a_class_from_creation_to_removing_a_learner(
    open_browser, course, javascript
):
    teacher = UserFactory(username="ms-hopper", timezone="Europe/London")
    learner = UserFactory(username="ada", timezone="Asia/Tokyo")
    lesson = Lesson.objects.live().order_by("number").first()
    assert lesson is not None
    t = open_browser(javascript=javascript)
    signed_in(t, teacher)

    t.go("/")
    t.page.get_by_role("link", name="Teach").click()
    expect(t.page.get_by_role("heading", level=1)).to_have_text("Your classes")
    check_page(t)
    t.page.get_by_label("Name of the class").fill("Year 12 physics")
    t.page.get_by_role("button", name="Create the class").click()
    expect(t.page.get_by_role("heading", level=1)).to_have_text("Year 12 physics")
    classroom = Classroom.objects.get(teacher=teacher)
    assert t.page.get_by_role("img", name="QR code of the join link").count() == 1
    if javascript:
        screenshot(t.page, "teach-classroom")
    check_page(t)
    join_link = t.page.get_by_role("link", name=f"/join/{classroom.join_code}/").first
    join_url = join_link.get_attribute("href")
    assert join_url is not None

    # The learner opens the link in a browser of their own, and confirms.
    s = open_browser(javascript=javascript)
    signed_in(s, learner)
    s.page.goto(join_url)
    assert "taught by ms-hopper" in main_text(s)
    check_page(s)
    assert not Membership.objects.exists(), "opening the link joins nobody"
    s.page.get_by_role("button", name="Join the class").click()
    expect(s.page.get_by_text("You joined “Year 12 physics”.")).to_be_visible()
    assert Membership.objects.filter(classroom=classroom, user=learner).exists()

    # The teacher sets the lesson as an assignment, due in their own time zone.
    t.go(f"/teach/{classroom.pk}/")
    assert "ada" in main_text(t)
    t.page.get_by_role("link", name="Set an assignment").click()
    check_page(t)
    t.page.get_by_label("Title").fill("Read the first lesson")
    t.page.get_by_label("Lesson to complete").select_option(str(lesson.pk))
    t.page.get_by_label("Due").fill("2031-03-01T17:00")
    t.page.get_by_role("button", name="Set the assignment").click()
    expect(t.page.get_by_text("Assignment set.")).to_be_visible()

    # The learner sees it on their home page, in Tokyo's time, and does it.
    s.go("/")
    assert "To do: Read the first lesson" in main_text(s)
    assert "Sun 2 Mar, 02:00" in main_text(s)  # 17:00 in London is 02:00 next day in Tokyo
    check_page(s)
    s.go(f"/courses/{lesson.course.slug}/{lesson.slug}/")
    s.page.get_by_role("button", name="Mark complete").click()
    expect(s.page.get_by_text("You completed this lesson.")).to_be_visible()
    s.go("/")
    assert "Done: Read the first lesson" in main_text(s)
    t.go(f"/teach/{classroom.pk}/questions/")
    check_page(t)
    s.go("/review/")
    answer_by_buttons(s.page)
    answered = Answer.objects.get(user=learner, mode="review")
    t.go(f"/teach/{classroom.pk}/questions/")
    row = t.page.get_by_role("row").filter(has_text=answered.question.key).first
    expect(row.locator("td").first).to_have_text("1")
    if javascript:
        screenshot(t.page, "teach-questions")

    # A learner's "Spotted a mistake?" note reaches the teacher from the question's row.
    Report.objects.create(
        user=learner, question_id=answered.question_id, message="Is the bias counted twice?"
    )
    t.go(f"/teach/{classroom.pk}/questions/")
    t.page.get_by_role("link", name=f"1 open report on {answered.question.key}").click()
    expect(t.page.get_by_role("heading", level=1)).to_have_text(
        f"Reports on {answered.question.key}"
    )
    assert "Is the bias counted twice?" in main_text(t)
    assert not re.search(r"\bada\b", main_text(t)), "who sent a report is not shown"
    if javascript:
        screenshot(t.page, "teach-reports")
    check_page(t)

    # The teacher sees the progress, sorts it, and downloads it.
    t.go(f"/teach/{classroom.pk}/progress/")
    row = t.page.get_by_role("row", name="ada")
    expect(row).to_contain_text("1 of 1")
    if javascript:
        screenshot(t.page, "teach-progress")
    check_page(t)
    t.page.get_by_role("link", name="ada").click()
    expect(t.page.get_by_role("heading", level=1)).to_have_text("ada")
    assert "Reviews this week\n1" in main_text(t)
    if javascript:
        screenshot(t.page, "teach-learner")
    check_page(t)
    t.go(f"/teach/{classroom.pk}/progress/")
    t.page.get_by_role("link", name="Lessons done").click()
    expect(t.page.locator("th[aria-sort]")).to_have_text("Lessons done")
    with t.page.expect_download() as download:
        t.page.get_by_role("link", name="Download as CSV").click()
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("user_id,username,lessons_completed")
    assert lines[1].split(",")[1:3] == ["ada", "1"]

    # The teacher renames the assignment from the class page.
    t.go(f"/teach/{classroom.pk}/")
    t.page.get_by_role("link", name="Edit Read the first lesson").click()
    expect(t.page.get_by_label("Title")).to_have_value("Read the first lesson")
    check_page(t)
    t.page.get_by_label("Title").fill("Read lesson one")
    t.page.get_by_role("button", name="Save").click()
    expect(t.page.get_by_text("Assignment saved.")).to_be_visible()
    assert "Read lesson one" in main_text(t)

    # Removing the learner: the class is gone from their home, and its pages are not theirs.
    t.go(f"/teach/{classroom.pk}/")
    t.page.get_by_role("button", name="Remove ada").click()
    expect(t.page.get_by_text("Removed from the class.")).to_be_visible()
    assert not Membership.objects.exists()
    s.go("/")
    assert "Year 12 physics" not in main_text(s)
    assert s.go(f"/teach/{classroom.pk}/").status == 404

    t.go("/teach/digest/")
    assert "Year 12 physics" not in main_text(t), "no learners left: nothing to say of it"
    check_page(t)

    # Archived, the class says so and its code joins nobody; restored, it is as it was.
    t.go(f"/teach/{classroom.pk}/")
    t.page.get_by_role("button", name="Archive the class").click()
    expect(
        t.page.get_by_text("Archived: its code no longer joins", exact=False).first
    ).to_be_visible()
    assert "archived: its code no longer joins" in main_text(t)
    check_page(t)
    t.page.get_by_role("button", name="Restore the class").click()
    expect(t.page.get_by_role("button", name="Archive the class")).to_be_visible()


def test_another_teacher_and_another_classs_learner_see_nothing(open_browser, course):
    classroom = ClassroomFactory(name="Secret class")
    other = MembershipFactory(classroom=ClassroomFactory(course=classroom.course)).user
    for who in (ClassroomFactory().teacher, other):
        browse = open_browser()
        signed_in(browse, who)
        for path in (f"/teach/{classroom.pk}/", f"/teach/{classroom.pk}/progress/"):
            response = browse.go(path)
            assert response.status == 404
            assert "Secret class" not in main_text(browse)
        check_page(browse)
