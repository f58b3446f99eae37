"""The teachers' pages and joining a class in the browser's terms: who sees what (404 for
anyone but the teacher), forms that refuse bad input next to the field, and query counts."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from classrooms.digests import digest_sections
from classrooms.items import ItemStats
from classrooms.models import Assignment, Classroom, Membership
from classrooms.web.views import item_flags
from course.models import LessonProgress, Report
from reviews.models import Answer
from tests.factories import (
    AssignmentFactory,
    ClassroomFactory,
    CourseFactory,
    LessonFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client):
    """Every request over HTTPS, as the site serves it."""
    client.get = functools.partial(client.get, secure=True)
    client.post = functools.partial(client.post, secure=True)
    return client


@pytest.fixture
def room():
    classroom = ClassroomFactory(name="Year 12", teacher__timezone="Europe/London")
    LessonFactory(course=classroom.course, number=1, slug="neurons", title="Neurons")
    return classroom


def teacher_client(client, classroom):
    client.force_login(classroom.teacher)
    return client


def test_a_teacher_creates_a_class_and_sees_its_join_link_and_qr_code(client):
    teacher = UserFactory()
    course = CourseFactory(title="Transformers")
    client.force_login(teacher)

    response = client.post("/teach/", {"name": "  Period 3  ", "course": course.pk})

    classroom = Classroom.objects.get(teacher=teacher)
    assert classroom.name == "Period 3"
    assert response.status_code == 303
    assert response["Location"] == f"/teach/{classroom.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert classroom.join_code in page
    assert f"/join/{classroom.join_code}/" in page
    assert '<svg role="img" aria-label="QR code of the join link"' in page


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "", "course": "1"}, "Give the class a name."),
        ({"name": "a\x00b", "course": "1"}, "Null characters are not allowed."),
        ({"name": "x" * 121, "course": "1"}, "at most 120 characters"),
        ({"name": "ok", "course": "999999"}, "Choose one of the courses listed."),
    ],
)
def test_a_bad_new_class_is_refused_next_to_the_field(client, data, message):
    CourseFactory(pk=1)
    client.force_login(UserFactory())

    response = client.post("/teach/", data)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Classroom.objects.exists()


PAGES = [
    "/teach/{c}/",
    "/teach/{c}/progress/",
    "/teach/{c}/progress/?format=csv",
    "/teach/{c}/assignments/new/",
    "/teach/{c}/questions/",
    "/teach/{c}/questions/{q}/reports/",
]


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("who", ["other_teacher", "member", "stranger"])
def test_nobody_but_the_teacher_sees_a_class_page(client, room, path, who):
    member = MembershipFactory(classroom=room).user
    caller = {
        "other_teacher": ClassroomFactory(course=room.course).teacher,
        "member": member,
        "stranger": UserFactory(),
    }[who]
    question = QuestionFactory(lesson=room.course.lessons.get())
    client.force_login(caller)

    assert client.get(path.format(c=room.pk, q=question.pk)).status_code == 404


@pytest.mark.parametrize(
    "path", ["rename/", "rotate/", "archive/", "remove/{u}/", "assignments/{a}/delete/"]
)
def test_nobody_but_the_teacher_changes_a_class(client, room, path):
    member = MembershipFactory(classroom=room).user
    assignment = AssignmentFactory(classroom=room, lesson=room.course.lessons.get())
    client.force_login(ClassroomFactory().teacher)
    code = room.join_code

    response = client.post(
        f"/teach/{room.pk}/" + path.format(u=member.pk, a=assignment.pk), {"name": "Mine"}
    )

    assert response.status_code == 404
    room.refresh_from_db()
    assert (room.name, room.join_code, room.archived_at) == ("Year 12", code, None)
    assert Membership.objects.filter(classroom=room, user=member).exists()
    assert Assignment.objects.filter(pk=assignment.pk).exists()


def test_the_teacher_renames_rotates_archives_and_restores(client, room):
    teacher_client(client, room)
    old = room.join_code

    assert client.post(f"/teach/{room.pk}/rename/", {"name": "Year 13"}).status_code == 303
    assert client.post(f"/teach/{room.pk}/rename/", {"name": " "}).status_code == 400
    assert client.post(f"/teach/{room.pk}/rotate/").status_code == 303
    room.refresh_from_db()
    assert room.name == "Year 13"
    assert room.join_code != old
    client.post(f"/teach/{room.pk}/archive/")
    room.refresh_from_db()
    assert room.archived_at is not None
    client.post(f"/teach/{room.pk}/archive/")
    room.refresh_from_db()
    assert room.archived_at is None


def test_removing_a_learner_who_is_not_a_member_is_a_404(client, room):
    teacher_client(client, room)

    assert client.post(f"/teach/{room.pk}/remove/{UserFactory().pk}/").status_code == 404


def test_joining_asks_first_then_joins_and_the_home_page_shows_the_class(client, room):
    learner = UserFactory(timezone="Asia/Tokyo")
    AssignmentFactory(
        classroom=room,
        title="Read neurons",
        lesson=room.course.lessons.get(),
        due_at=datetime(2030, 5, 1, 9, 0, tzinfo=UTC),
    )
    client.force_login(learner)

    page = client.get(f"/join/{room.join_code}/")
    assert page.status_code == 200
    assert "Year 12" in page.content.decode()
    assert room.teacher.username in page.content.decode()
    assert not Membership.objects.filter(user=learner).exists()

    response = client.post(f"/join/{room.join_code.lower()}/")
    assert response.status_code == 303
    assert Membership.objects.filter(user=learner, classroom=room).exists()
    home = client.get("/").content.decode()
    assert "Year 12" in home
    assert "Read neurons" in home
    assert "Wed 1 May, 18:00" in home  # 09:00 UTC in Tokyo
    assert "To do" in home


def test_a_signed_out_visitor_is_sent_to_sign_in_and_back(client, room):
    page = client.get(f"/join/{room.join_code}/").content.decode()
    assert f"next=/join/{room.join_code}/" in page.replace("%2F", "/")

    response = client.post(f"/join/{room.join_code}/")
    assert response.status_code == 302
    assert f"next=/join/{room.join_code}/" in response["Location"].replace("%2F", "/")


@pytest.mark.parametrize("code", ["NOSUCHCODE", "x" * 5000, "AB\x00CDEFGH"])
def test_an_unknown_join_code_is_a_404(client, code):
    client.force_login(UserFactory())

    assert client.get(f"/join/{code}/").status_code == 404


def test_joining_by_page_shares_the_apis_join_budget(client, room, settings):
    room.archived_at = timezone.now()  # every attempt is refused, so each one counts
    room.save()
    client.force_login(UserFactory())
    limit = int(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["join"].split("/")[0])

    statuses = [client.post(f"/join/{room.join_code}/").status_code for _ in range(limit + 1)]

    assert statuses[:limit] == [400] * limit
    assert statuses[limit] == 429


def test_an_archived_class_does_not_join(client, room):
    room.archived_at = timezone.now()
    room.save()
    client.force_login(UserFactory())

    response = client.post(f"/join/{room.join_code}/")

    assert response.status_code == 400
    assert not Membership.objects.exists()


def test_an_assignment_is_due_in_the_teachers_zone_and_can_be_edited_and_deleted(client, room):
    teacher_client(client, room)
    lesson = room.course.lessons.get()
    question = QuestionFactory(lesson=lesson)

    response = client.post(
        f"/teach/{room.pk}/assignments/new/",
        {"title": "Week 1", "lesson": lesson.pk, "due_at": "2030-07-01T17:00"},
    )

    assert response.status_code == 303
    assignment = Assignment.objects.get()
    assert assignment.due_at == datetime(2030, 7, 1, 16, 0, tzinfo=UTC)  # BST is UTC+1
    response = client.post(
        f"/teach/{room.pk}/assignments/{assignment.pk}/",
        {"title": "Week 1b", "questions": [str(question.pk)], "due_at": "2020-01-01T09:00"},
    )
    assert response.status_code == 303
    assignment.refresh_from_db()
    assert (assignment.title, assignment.lesson, assignment.question_ids) == (
        "Week 1b",
        None,
        [question.pk],
    )
    assert assignment.due_at == datetime(2020, 1, 1, 9, 0, tzinfo=UTC)  # back-dated is allowed
    assert client.post(f"/teach/{room.pk}/assignments/{assignment.pk}/delete/").status_code == 303
    assert not Assignment.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"title": "W", "due_at": "2030-07-01T17:00"}, "Choose a lesson, some questions, or both."),
        ({"title": "W", "lesson": "1", "due_at": "tomorrow"}, "Give the date and time"),
        ({"title": "W", "lesson": "1", "due_at": "99999-01-01T00:00"}, "Give the date and time"),
        ({"title": "W", "lesson": "1", "due_at": "1900-01-01T00:00"}, "between the years"),
        (
            {"title": "", "lesson": "1", "due_at": "2030-07-01T17:00"},
            "Give the assignment a title.",
        ),
        ({"title": "W", "lesson": "424242", "due_at": "2030-07-01T17:00"}, "course&#x27;s lessons"),
        ({"title": "W", "questions": ["999999"], "due_at": "2030-07-01T17:00"}, "Choose among"),
    ],
)
def test_a_bad_assignment_is_refused_next_to_the_field(client, room, data, message):
    other_course_lesson = LessonFactory(pk=424242)
    assert other_course_lesson.course_id != room.course_id
    data = {
        **data,
        "lesson": str(room.course.lessons.get().pk)
        if data.get("lesson") == "1"
        else data.get("lesson", ""),
    }
    teacher_client(client, room)

    response = client.post(f"/teach/{room.pk}/assignments/new/", data)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Assignment.objects.exists()


def test_another_classes_assignment_is_a_404(client, room):
    teacher_client(client, room)
    theirs = AssignmentFactory()

    assert client.get(f"/teach/{room.pk}/assignments/{theirs.pk}/").status_code == 404
    assert client.post(f"/teach/{room.pk}/assignments/{theirs.pk}/delete/").status_code == 404
    assert Assignment.objects.filter(pk=theirs.pk).exists()


def test_the_class_page_counts_done_late_and_not_started(client, room):
    lesson = room.course.lessons.get()
    on_time, late, idle = (MembershipFactory(classroom=room).user for _ in range(3))
    due = timezone.now() - timedelta(days=1)
    AssignmentFactory(classroom=room, lesson=lesson, due_at=due, title="Neurons")
    LessonProgress.objects.create(
        user=on_time, lesson=lesson, completed_at=due - timedelta(hours=1)
    )
    LessonProgress.objects.create(user=late, lesson=lesson, completed_at=due + timedelta(hours=1))
    teacher_client(client, room)

    page = client.get(f"/teach/{room.pk}/").content.decode()

    row = re.search(r"<th scope=\"row\">Neurons.*?</tr>", page, re.S)
    assert row is not None
    assert re.findall(r"<td>(\d+)</td>", row.group(0)) == ["1", "1", "1"]
    assert idle.username in page


def test_progress_sorts_and_downloads_as_csv(client, room):
    lesson = room.course.lessons.get()
    keen = MembershipFactory(classroom=room, user__username="zed").user
    MembershipFactory(classroom=room, user__username="amy")
    LessonProgress.objects.create(user=keen, lesson=lesson, completed_at=timezone.now())
    teacher_client(client, room)

    by_name = client.get(f"/teach/{room.pk}/progress/").content.decode()
    by_lessons = client.get(f"/teach/{room.pk}/progress/?sort=lessons&order=desc").content.decode()
    odd = client.get(f"/teach/{room.pk}/progress/?sort=%00&order=x" + "y" * 5000)
    csv = client.get(f"/teach/{room.pk}/progress/?format=csv")

    assert by_name.index(">amy<") < by_name.index(">zed<")
    assert by_lessons.index(">zed<") < by_lessons.index(">amy<")
    assert odd.status_code == 200
    body = b"".join(csv.streaming_content).decode()
    assert body.splitlines()[0].startswith("user_id,username,lessons_completed")
    assert ",zed,1," in body


def test_progress_and_class_pages_cost_the_same_for_3_learners_as_for_30(client, room):
    teacher_client(client, room)
    lesson = room.course.lessons.get()
    AssignmentFactory(classroom=room, lesson=lesson)

    def queries_for(learners: int) -> tuple[int, int]:
        Membership.objects.filter(classroom=room).delete()
        for _ in range(learners):
            user = MembershipFactory(classroom=room).user
            LessonProgress.objects.create(user=user, lesson=lesson, completed_at=timezone.now())
        counts = []
        for path in (f"/teach/{room.pk}/progress/", f"/teach/{room.pk}/"):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(path).status_code == 200
            counts.append(len(queries))
        return counts[0], counts[1]

    assert queries_for(3) == queries_for(30)


def test_the_dashboard_costs_the_same_for_2_classes_as_for_20(client):
    teacher = UserFactory()
    client.force_login(teacher)

    def queries_for(classes: int) -> int:
        Classroom.objects.filter(teacher=teacher).delete()
        for _ in range(classes):
            MembershipFactory(classroom=ClassroomFactory(teacher=teacher))
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/teach/").status_code == 200
        return len(queries)

    assert queries_for(2) == queries_for(20)


# --- one learner --------------------------------------------------------------------------


def test_the_learner_page_shows_this_course_and_nothing_outside_it(client, room):
    learner = MembershipFactory(classroom=room, user__username="ada").user
    mine = room.course.lessons.get()
    elsewhere = LessonFactory(title="A lesson of another course")
    LessonProgress.objects.create(user=learner, lesson=mine, completed_at=timezone.now())
    LessonProgress.objects.create(user=learner, lesson=elsewhere, completed_at=timezone.now())
    teacher_client(client, room)

    page = client.get(f"/teach/{room.pk}/learners/{learner.pk}/").content.decode()

    assert "<h1>ada</h1>" in page
    assert "1 of 1" in page
    assert "Neurons: done" in page
    assert "A lesson of another course" not in page


def test_a_learner_page_is_only_for_a_current_member_and_their_teacher(client, room):
    learner = MembershipFactory(classroom=room).user
    stranger = UserFactory()
    path = f"/teach/{room.pk}/learners/{{}}/"
    teacher_client(client, room)

    assert client.get(path.format(learner.pk)).status_code == 200
    assert client.get(path.format(stranger.pk)).status_code == 404
    Membership.objects.filter(user=learner).delete()
    assert client.get(path.format(learner.pk)).status_code == 404
    MembershipFactory(classroom=room, user=learner)
    client.force_login(ClassroomFactory(course=room.course).teacher)
    assert client.get(path.format(learner.pk)).status_code == 404


# --- item analysis and the digest ---------------------------------------------------------


def stats(**kwargs):
    defaults = {
        "question": 1,
        "key": "q",
        "lesson": "neurons",
        "answers": 10,
        "facility": 0.6,
        "discrimination": 0.4,
        "misconceptions": [],
    }
    return ItemStats(**{**defaults, **kwargs})


@pytest.mark.parametrize(
    ("figures", "flags"),
    [
        ({}, []),
        ({"facility": None, "discrimination": None}, []),
        ({"facility": 0.95}, ["Too easy"]),
        ({"facility": 0.2}, ["Too hard"]),
        ({"discrimination": -0.1}, ["Negative discrimination"]),
        (
            {"misconceptions": [{"code": "no_bias", "count": 4}, {"code": "x", "count": 1}]},
            ["One mistake dominates: no_bias"],
        ),
        (
            {
                "misconceptions": [
                    {"code": "a", "count": 3},
                    {"code": "b", "count": 3},
                    {"code": "c", "count": 3},
                ]
            },
            [],
        ),
        ({"misconceptions": [{"code": "rare", "count": 2}]}, []),
    ],
)
def test_which_questions_are_worth_a_look(figures, flags):
    assert item_flags(stats(**figures)) == flags


def test_the_questions_page_flags_a_question_and_counts_its_reports(client, room):
    lesson = room.course.lessons.get()
    question = QuestionFactory(lesson=lesson, key="ffn-width")
    for i in range(5):
        user = MembershipFactory(classroom=room).user
        Answer.objects.create(
            user=user, question=question, question_version=1, score=0, status="incorrect",
            misconception="no_bias", created_at=timezone.now() - timedelta(minutes=i),
        )  # fmt: skip
    Report.objects.create(user=UserFactory(), question_id=question.pk, message="Off by one.")
    teacher_client(client, room)

    page = client.get(f"/teach/{room.pk}/questions/").content.decode()

    assert "ffn-width" in page
    assert "no_bias (5)" in page
    assert "Too hard" in page
    assert "One mistake dominates: no_bias" in page
    assert "1 open</a>" in page
    assert f"/teach/{room.pk}/questions/{question.pk}/reports/" in page


def test_the_teacher_reads_a_questions_reports_without_who_sent_them(client, room):
    question = QuestionFactory(lesson=room.course.lessons.get(), key="ffn-width")
    other = QuestionFactory(lesson=room.course.lessons.get())
    sender = UserFactory(username="sender-secret")
    Report.objects.create(user=sender, question_id=question.pk, message="The <b>bias</b> is off.")
    Report.objects.create(
        user=sender, question_id=question.pk, message="Old news.", status=Report.Status.FIXED
    )
    Report.objects.create(user=sender, question_id=other.pk, message="About another one.")
    teacher_client(client, room)

    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/teach/{room.pk}/questions/{question.pk}/reports/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "2 reports, 1 open" in page
    assert "The &lt;b&gt;bias&lt;/b&gt; is off." in page  # the learner's words, escaped
    assert "Fixed" in page
    assert "Old news." in page
    assert "About another one." not in page
    assert "sender-secret" not in page
    assert f"/courses/{room.course.slug}/neurons/report/?question={question.pk}" in page
    assert len(queries) <= 8, [q["sql"] for q in queries.captured_queries]


def test_another_courses_question_has_no_reports_page_in_this_class(client, room):
    elsewhere = QuestionFactory()  # a lesson of another course
    Report.objects.create(user=UserFactory(), question_id=elsewhere.pk, message="Elsewhere.")
    teacher_client(client, room)

    assert client.get(f"/teach/{room.pk}/questions/{elsewhere.pk}/reports/").status_code == 404
    assert client.get(f"/teach/{room.pk}/questions/987654321/reports/").status_code == 404


def test_the_digest_page_shows_what_the_email_says(client, room):
    MembershipFactory(classroom=room)
    client.force_login(room.teacher)

    page = client.get("/teach/digest/").content.decode()

    sections, _ = digest_sections(teacher=room.teacher, now=timezone.now())
    assert sections
    assert "Year 12" in page
    assert "0 of 1 learners reviewed this week" in page
