"""A teacher's view of a classroom: every column checked against a hand count on a seeded
class, the CSV safe to open in a spreadsheet, and a fixed number of queries."""

import csv
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import services as account_services
from accounts.models import User
from classrooms.api.progress import spreadsheet_safe
from classrooms.models import Membership
from classrooms.progress import classroom_progress
from course.models import LessonProgress
from engine.scheduling import retrievability
from reviews.models import Answer, Card
from reviews.rollups import rebuild_everyone
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

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def answer(user, question, *, at, score, mode="review", misconception=""):
    status = {1: "correct", 0: "incorrect"}.get(score, "partial")
    row = Answer.objects.create(
        user=user, question=question, question_version=1, mode=mode, status=status,
        score=score, misconception=misconception,
    )  # fmt: skip
    Answer.objects.filter(pk=row.pk).update(created_at=at, received_at=at)
    return row


def card(user, question, *, stability, last_review, due, state="review", suspended=False):
    return Card.objects.create(
        user=user, question=question, state=state, stability=stability, difficulty=5.0,
        step=None if state == "review" else 0, last_review=last_review, due=due,
        suspended=suspended, reps=2, seed=1,
    )  # fmt: skip


def completed(user, lesson, at):
    LessonProgress.objects.create(user=user, lesson=lesson, completed_at=at)


@pytest.fixture
def seeded():
    """Three members (one in Tokyo, one idle), a former member and work on another course."""
    course = CourseFactory()
    first, second = LessonFactory(course=course, number=1), LessonFactory(course=course, number=2)
    q1, q2 = QuestionFactory.create_batch(2, lesson=first)
    q3 = QuestionFactory(lesson=second)
    elsewhere = QuestionFactory()  # another course: never counted
    classroom = ClassroomFactory(course=course)

    ada = UserFactory(username="ada", timezone="UTC", day_starts_at_hour=4)
    bo = UserFactory(username="bo", timezone="Asia/Tokyo", day_starts_at_hour=0)
    cy = UserFactory(username="cy")
    gone = UserFactory(username="gone")
    for user in (ada, bo, cy):
        MembershipFactory(classroom=classroom, user=user)

    completed(ada, first, NOW - timedelta(days=2))
    LessonProgress.objects.create(user=ada, lesson=second)  # started, not completed
    answer(ada, q1, at=NOW - timedelta(hours=1), score=1)
    answer(ada, q2, at=NOW - timedelta(days=1), score=0)
    answer(ada, q3, at=NOW - timedelta(days=10), score=0.5, mode="practice")
    answer(ada, q3, at=NOW - timedelta(days=3), score=1)  # a gap day before: not in the streak
    answer(ada, elsewhere, at=NOW - timedelta(minutes=30), score=1)
    card(ada, q1, stability=10, last_review=NOW - timedelta(days=1), due=NOW + timedelta(days=9))
    card(
        ada, q2, stability=2, last_review=NOW - timedelta(days=1), due=NOW - timedelta(hours=2),
        state="relearning",
    )  # fmt: skip
    card(ada, q3, stability=5, last_review=NOW - timedelta(days=10), due=NOW - timedelta(days=3))
    card(ada, elsewhere, stability=1, last_review=NOW - timedelta(days=9), due=NOW - timedelta(9))

    # Tokyo is UTC+9: these fall on the 10th, 9th and 8th there, but the 9th, 9th and 8th in UTC.
    answer(bo, q1, at=datetime(2026, 3, 9, 16, 0, tzinfo=UTC), score=1)
    answer(bo, q1, at=datetime(2026, 3, 9, 14, 0, tzinfo=UTC), score=0)
    answer(bo, q2, at=datetime(2026, 3, 8, 14, 30, tzinfo=UTC), score=1)
    bo_recent = datetime(2026, 3, 9, 16, 0, tzinfo=UTC)
    # Due at 23:00 in Tokyo on the 10th: due today, not overdue.
    card(bo, q1, stability=3, last_review=bo_recent, due=datetime(2026, 3, 10, 14, 0, tzinfo=UTC))
    card(
        bo, q2, stability=4, last_review=NOW - timedelta(days=6), due=NOW - timedelta(days=2),
        suspended=True,
    )  # fmt: skip

    answer(gone, q1, at=NOW, score=1)  # never a member: never listed

    AssignmentFactory(classroom=classroom, lesson=first, due_at=NOW - timedelta(days=1))
    AssignmentFactory(classroom=classroom, question_ids=[q1.pk], due_at=NOW - timedelta(hours=2))
    AssignmentFactory(classroom=classroom, question_ids=[q1.pk], due_at=NOW + timedelta(days=1))
    rebuild_everyone()  # the answers above were written straight to the log
    return classroom


def test_progress_matches_a_hand_count(seeded):
    rows = {row.username: row for row in classroom_progress(classroom=seeded, now=NOW)}

    assert list(rows) == ["ada", "bo", "cy"]
    ada, bo, cy = rows["ada"], rows["bo"], rows["cy"]

    assert ada.lessons_completed == 1
    assert ada.answers == 3  # the practice answer counts for nothing here
    assert ada.accuracy == pytest.approx((1 + 0 + 1) / 3)
    assert ada.average_retrievability == pytest.approx(
        (retrievability(10, 1) + retrievability(2, 1) + retrievability(5, 10)) / 3
    )
    assert (ada.due, ada.overdue) == (2, 1)  # q2 due this morning, q3 three days ago
    assert ada.reviews_7d == 3  # the practice answer is not a review
    assert ada.streak_days == 2  # today and yesterday; three days ago is past a gap
    assert ada.last_active == NOW - timedelta(hours=1)  # the other course's answer is later
    # The lesson in time and q1 before tomorrow; not q1 before two hours ago (answered since).
    assert ada.assignments_done == 2

    assert bo.lessons_completed == 0
    assert bo.answers == 3
    assert bo.accuracy == pytest.approx(2 / 3)
    assert bo.average_retrievability == pytest.approx(
        (retrievability(3, 0) + retrievability(4, 6)) / 2  # suspended cards are still memory
    )
    assert (bo.due, bo.overdue) == (1, 0)  # the suspended card is not due
    assert bo.reviews_7d == 3
    assert bo.streak_days == 3  # in Tokyo days; in UTC days it would be 2
    assert bo.last_active == datetime(2026, 3, 9, 16, 0, tzinfo=UTC)
    assert bo.assignments_done == 2  # both q1 assignments, not the lesson

    assert (cy.lessons_completed, cy.answers, cy.due, cy.overdue) == (0, 0, 0, 0)
    assert (cy.accuracy, cy.average_retrievability, cy.last_active) == (None, None, None)
    assert (cy.reviews_7d, cy.streak_days, cy.assignments_done) == (0, 0, 0)


def test_a_learner_who_leaves_drops_out_of_progress(seeded):
    Membership.objects.filter(user__username="bo").delete()

    rows = classroom_progress(classroom=seeded, now=NOW)

    assert [row.username for row in rows] == ["ada", "cy"]


def test_the_api_serves_the_same_figures_as_json_and_csv(client, seeded):
    client.force_login(seeded.teacher)
    url = f"/api/v1/classrooms/{seeded.pk}/progress/"

    body = client.get(url, secure=True).json()
    response = client.get(url + "?format=csv", secure=True)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.streaming
    table = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [row["username"] for row in table] == [x["username"] for x in body["learners"]]
    assert [row["answers"] for row in table] == [str(x["answers"]) for x in body["learners"]]
    assert table[2]["accuracy"] == ""  # no answers: empty, not "None"
    assert set(body["learners"][0]) == set(table[0])


@pytest.mark.parametrize(
    "name",
    ['=HYPERLINK("http://x","y")', "+1+2", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"],
)
def test_a_username_that_looks_like_a_formula_comes_out_as_text(client, name):
    classroom = ClassroomFactory()
    MembershipFactory(classroom=classroom, user=UserFactory(username=name))
    client.force_login(classroom.teacher)

    response = client.get(f"/api/v1/classrooms/{classroom.pk}/progress/?format=csv", secure=True)

    table = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert table[1][1] == "'" + name
    assert not table[1][1].startswith(("=", "+", "-", "@", "\t", "\r"))


def test_plain_text_and_numbers_are_left_alone():
    assert spreadsheet_safe("ada") == "ada"
    assert spreadsheet_safe(-3) == -3
    assert spreadsheet_safe("a=b") == "a=b"


# --- the cost stays flat -------------------------------------------------------------------------


def big_class(learners: int, *, cards_each: int = 3):
    """A classroom with `learners` members, each with cards, answers and a completed lesson,
    across several time zones, and two assignments."""
    course = CourseFactory()
    lesson = LessonFactory(course=course)
    questions = QuestionFactory.create_batch(cards_each, lesson=lesson)
    classroom = ClassroomFactory(course=course)
    zones = ["UTC", "Asia/Tokyo", "America/Los_Angeles", "Asia/Kolkata"]
    users = User.objects.bulk_create(
        User(
            username=f"{classroom.pk}-l{i}", password="!", timezone=zones[i % 4],
            day_starts_at_hour=i % 6,
        )
        for i in range(learners)
    )  # fmt: skip
    Membership.objects.bulk_create(Membership(classroom=classroom, user=u) for u in users)
    now = datetime.now(UTC)
    Card.objects.bulk_create(
        Card(
            user=u, question=q, state="review", stability=3.0, difficulty=5.0, due=now,
            last_review=now - timedelta(days=2), seed=1,
        )
        for u in users
        for q in questions
    )  # fmt: skip
    Answer.objects.bulk_create(
        Answer(
            user=u, question=q, question_version=1, status="correct", score=1.0,
            created_at=now - timedelta(days=d),
        )
        for u in users
        for q in questions
        for d in (0, 1)
    )  # fmt: skip
    LessonProgress.objects.bulk_create(
        LessonProgress(user=u, lesson=lesson, completed_at=now) for u in users
    )
    AssignmentFactory(classroom=classroom, lesson=lesson, question_ids=[questions[0].pk])
    AssignmentFactory(classroom=classroom, question_ids=[q.pk for q in questions])
    rebuild_everyone()  # the answers above were written straight to the log
    return classroom


def queries_for(client, classroom, suffix):
    _, key = account_services.token_create(user=classroom.teacher)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(
            f"/api/v1/classrooms/{classroom.pk}/{suffix}",
            headers={"Authorization": f"Token {key}", "X-Forwarded-Proto": "https"},
        )
        if response.streaming:
            b"".join(response.streaming_content)
    assert response.status_code == 200, response.content
    return [q["sql"] for q in queries.captured_queries]


# token, classroom; then progress: members, completions, course totals, the week's study days,
# cards, assignments, first right answers; items: questions, members, first attempts;
# assignments: count, page, members, completions, first right answers.
@pytest.mark.parametrize(
    ("suffix", "expected"),
    [("progress/", 9), ("progress/?format=csv", 9), ("items/", 5), ("assignments/", 7)],
)
def test_classroom_reads_cost_the_same_for_5_learners_as_for_200(client, suffix, expected):
    small = queries_for(client, big_class(5), suffix)
    large = queries_for(client, big_class(200), suffix)

    assert len(small) == len(large) == expected, "\n".join(large)


def test_progress_for_200_learners_has_every_learner(client):
    classroom = big_class(200)
    client.force_login(classroom.teacher)

    learners = client.get(f"/api/v1/classrooms/{classroom.pk}/progress/", secure=True).json()[
        "learners"
    ]

    assert len(learners) == 200
    assert {x["answers"] for x in learners} == {6}
    assert {x["assignments_done"] for x in learners} == {2}
    assert {x["due"] for x in learners} == {3}


def test_a_class_without_cards_or_answers_has_empty_figures():
    classroom = ClassroomFactory()
    for name in ("amy", "ben"):
        MembershipFactory(classroom=classroom, user=UserFactory(username=name))

    rows = classroom_progress(classroom=classroom, now=NOW)

    assert [(r.username, r.answers, r.due, r.average_retrievability) for r in rows] == [
        ("amy", 0, 0, None),
        ("ben", 0, 0, None),
    ]


# --- each learner's own day, wherever they are -----------------------------------------------


def test_the_week_of_reviews_ends_on_each_learners_own_today():
    """At noon UTC on the 10th it is still the 9th for a Honolulu learner whose day starts at
    4, and already the 11th on Kiritimati: three different weeks, summed in one query."""
    course = CourseFactory()
    question = QuestionFactory(lesson=LessonFactory(course=course))
    classroom = ClassroomFactory(course=course)
    zones = {
        "hono": ("Pacific/Honolulu", 4),  # 02:00 on the 10th: the day of the 9th
        "utc": ("UTC", 0),  # the 10th
        "kiri": ("Pacific/Kiritimati", 0),  # 02:00 on the 11th
    }
    for name, (zone, hour) in zones.items():
        learner = UserFactory(username=name, timezone=zone, day_starts_at_hour=hour)
        MembershipFactory(classroom=classroom, user=learner)
        # On each of their days from the 2nd, as many reviews as the day's number less one,
        # early in the day (and none yet to come): each week has a sum of its own.
        for day in range(2, 12):
            start = datetime(2026, 3, day, hour, 30, tzinfo=ZoneInfo(zone)).astimezone(UTC)
            for k in range(day - 1):
                if start + timedelta(minutes=k) <= NOW:
                    answer(learner, question, at=start + timedelta(minutes=k), score=1)
    rebuild_everyone()

    rows = {row.username: row for row in classroom_progress(classroom=classroom, now=NOW)}

    # hono: days 3 to 9 (2 + ... + 8); utc: 4 to 10 (3 + ... + 9); kiri: 5 to 11 (4 + ... + 10).
    assert {name: row.reviews_7d for name, row in rows.items()} == {
        "hono": 35, "utc": 42, "kiri": 49,
    }  # fmt: skip
    assert {name: row.answers for name, row in rows.items()} == {
        "hono": 36, "utc": 45, "kiri": 55,
    }  # fmt: skip
    assert {name: row.streak_days for name, row in rows.items()} == {
        "hono": 8, "utc": 9, "kiri": 10,
    }  # fmt: skip


def test_due_today_ends_at_the_learners_midnight_on_the_day_clocks_go_forward():
    """Berlin's clocks go forward on 29 March 2026: that day runs from 23:00 UTC on the 28th
    to 22:00 UTC on the 29th, 23 hours, and a card due at 22:30 UTC is tomorrow's."""
    course = CourseFactory()
    first, second = QuestionFactory.create_batch(2, lesson=LessonFactory(course=course))
    classroom = ClassroomFactory(course=course)
    berlin = UserFactory(username="berlin", timezone="Europe/Berlin", day_starts_at_hour=0)
    london = UserFactory(username="london", timezone="UTC", day_starts_at_hour=23)
    for user in (berlin, london):
        MembershipFactory(classroom=classroom, user=user)
    now = datetime(2026, 3, 29, 10, 0, tzinfo=UTC)
    for user in (berlin, london):
        # london's day also began at 23:00 UTC on the 28th, but is 24 hours long.
        card(user, first, stability=3, last_review=now - timedelta(days=1),
             due=datetime(2026, 3, 29, 21, 30, tzinfo=UTC))  # fmt: skip
        card(user, second, stability=3, last_review=now - timedelta(days=1),
             due=datetime(2026, 3, 29, 22, 30, tzinfo=UTC))  # fmt: skip

    rows = {row.username: row for row in classroom_progress(classroom=classroom, now=now)}

    assert (rows["berlin"].due, rows["london"].due) == (1, 2)
    assert (rows["berlin"].overdue, rows["london"].overdue) == (0, 0)
