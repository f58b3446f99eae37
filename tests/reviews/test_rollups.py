"""The review log's rollups: kept in step by every path that writes answers (online answers,
offline syncs, undo, a change of time zone), and always what a rebuild from the log makes."""

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.services import user_update_settings
from classrooms.progress import classroom_progress
from reviews.models import Answer, StudyDay, StudyTotal
from reviews.rollups import rebuild_everyone, streak_of, study_date_at
from reviews.stats import learner_stats
from tests.factories import (
    ClassroomFactory,
    LessonFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


def offline(question, at, typed="8e6"):
    return {
        "client_id": str(uuid.uuid4()),
        "question": question.pk,
        "reviewed_at": at.isoformat().replace("+00:00", "Z"),
        "response": typed,
        "duration_ms": 12_000,
    }


def snapshot():
    """Every rollup row, as plain values (ids left out: a rebuild makes new rows)."""
    days = sorted(
        StudyDay.objects.values_list(
            "user_id", "course_id", "day", "answers", "reviews", "correct", "score", "mature",
            "passed", "time_ms", "last_at",
        )
    )  # fmt: skip
    totals = sorted(
        StudyTotal.objects.values_list(
            "user_id", "course_id", "answers", "reviews", "correct", "score", "time_ms",
            "last_at", "run_start", "run_end",
        )
    )  # fmt: skip
    return days, totals


def rebuilt_equals_kept():
    kept = snapshot()
    rebuild_everyone()
    assert snapshot() == kept
    return kept


@pytest.fixture
def learner(api):
    user = UserFactory(
        timezone="America/New_York",
        day_starts_at_hour=4,
        date_joined=timezone.now() - timedelta(30),
    )
    api.authenticate(user)
    return user


def test_every_writing_path_keeps_the_rollups_as_a_rebuild_makes_them(api, learner):
    lesson = LessonFactory()
    first, second = QuestionFactory(lesson=lesson), QuestionFactory(lesson=lesson)
    other_course = QuestionFactory()
    course, now = lesson.course_id, timezone.now()
    today = study_date_at(user=learner, moment=now)

    # Online: a review of another course, a right review, practice, and a wrong review.
    for question, body in (
        (other_course, {"response": "8e6"}),
        (first, {"response": "8e6"}),
        (first, {"response": "8e6", "mode": "practice"}),
        (second, {"response": "1"}),
    ):
        response = api.post(f"/api/v1/questions/{question.pk}/answers/", body)
        assert response.status_code == 201, response.text
    days, _ = rebuilt_equals_kept()
    assert {(r[1], r[2]): r[3:6] for r in days}[(course, today)] == (3, 2, 1)

    # Undo takes back the wrong review, the last one received.
    assert api.post("/api/v1/reviews/undo/", {}).status_code == 200
    days, _ = rebuilt_equals_kept()
    assert {(r[1], r[2]): r[3:6] for r in days}[(course, today)] == (2, 1, 1)

    # Offline, over earlier days; the one for `first` is late for its card, whose reviews
    # since are replayed (and may count otherwise: the card's state before them changes).
    times = [now - timedelta(days=d, hours=1) for d in (1, 2, 3, 6)]
    items = [offline(second, at) for at in times]
    items.append(offline(first, now - timedelta(days=2, hours=5), typed="2"))
    synced = api.post("/api/v1/reviews/sync/", {"reviews": items})
    assert {r["status"] for r in synced.json()["results"]} == {"applied"}, synced.text
    _, totals = rebuilt_equals_kept()

    (total,) = [t for t in totals if t[:2] == (learner.pk, course)]
    assert total[2:4] == (7, 6)  # answers, reviews
    studied = {today} | {study_date_at(user=learner, moment=at) for at in times}
    start = today
    while start - timedelta(days=1) in studied:
        start -= timedelta(days=1)
    assert (total[8], total[9]) == (start, today)

    # A new time zone moves every day, at once.
    user_update_settings(user=learner, timezone="Asia/Tokyo", day_starts_at_hour=0)
    rebuilt_equals_kept()
    expected = {
        study_date_at(user=learner, moment=at)
        for at in Answer.objects.filter(user=learner).values_list("created_at", flat=True)
    }
    assert set(StudyDay.objects.filter(user=learner).values_list("day", flat=True)) == expected


def test_offline_reviews_that_fill_the_gap_before_a_run_join_it(api, learner):
    question = QuestionFactory()
    now = timezone.now()
    at = [now - timedelta(days=d) for d in (0, 1, 3, 4)]
    api.post("/api/v1/reviews/sync/", {"reviews": [offline(question, t) for t in at]})
    total = StudyTotal.objects.get(user=learner)
    today = study_date_at(user=learner, moment=now)
    assert (total.run_start, total.run_end) == (today - timedelta(days=1), today)

    # The missing day, synced later: the two runs are one.
    api.post("/api/v1/reviews/sync/", {"reviews": [offline(question, now - timedelta(days=2))]})
    total.refresh_from_db()
    assert (total.run_start, total.run_end) == (today - timedelta(days=4), today)
    rebuilt_equals_kept()


def test_progress_and_stats_read_the_rollups_not_the_log(api, learner):
    """The figures come from the rollups: rows written to the log behind their back do not
    show until a rebuild, which proves what is read."""
    question = QuestionFactory()
    classroom = ClassroomFactory(course=question.lesson.course)
    MembershipFactory(classroom=classroom, user=learner)
    api.post(f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"})
    Answer.objects.create(
        user=learner, question=question, question_version=1, status="correct", score=1.0,
        created_at=timezone.now() - timedelta(days=1),
    )  # fmt: skip
    now = timezone.now()

    (row,) = classroom_progress(classroom=classroom, now=now)
    assert (row.answers, row.streak_days, row.reviews_7d) == (1, 1, 1)
    assert learner_stats(user=learner, now=now).streak_days == 1

    call_command("rollups_rebuild", user=[learner.pk])

    (row,) = classroom_progress(classroom=classroom, now=now)
    assert (row.answers, row.streak_days, row.reviews_7d) == (2, 2, 2)
    assert learner_stats(user=learner, now=now).streak_days == 2


def test_a_streak_longer_than_the_heatmap_is_counted_in_full():
    user = UserFactory(timezone="UTC", day_starts_at_hour=0)
    question = QuestionFactory()
    now = datetime(2026, 6, 1, 12, tzinfo=UTC)
    for days_ago in range(12):
        Answer.objects.create(
            user=user, question=question, question_version=1, status="correct", score=1.0,
            created_at=now - timedelta(days=days_ago),
        )  # fmt: skip
    rebuild_everyone()

    stats = learner_stats(user=user, now=now, days=7)

    assert len(stats.heatmap) == 7
    assert stats.streak_days == 12


@pytest.mark.parametrize(
    ("run", "today", "streak"),
    [
        ((None, None), date(2026, 5, 10), 0),
        ((date(2026, 5, 8), date(2026, 5, 10)), date(2026, 5, 10), 3),
        ((date(2026, 5, 8), date(2026, 5, 10)), date(2026, 5, 11), 3),  # today is young
        ((date(2026, 5, 8), date(2026, 5, 10)), date(2026, 5, 12), 0),  # a day missed
        ((date(2026, 5, 8), date(2026, 5, 12)), date(2026, 5, 10), 3),  # later days not counted
    ],
)
def test_a_run_makes_the_streak_of_its_days(run, today, streak):
    assert streak_of(run_start=run[0], run_end=run[1], today=today) == streak


def test_a_study_day_begins_at_the_learners_hour_in_their_zone():
    user = UserFactory(timezone="Asia/Tokyo", day_starts_at_hour=4)
    # 03:59 in Tokyo on the 10th is still the 9th's study day; 04:00 begins the 10th.
    assert study_date_at(user=user, moment=datetime(2026, 3, 9, 18, 59, tzinfo=UTC)) == date(
        2026, 3, 9
    )
    assert study_date_at(user=user, moment=datetime(2026, 3, 9, 19, 0, tzinfo=UTC)) == date(
        2026, 3, 10
    )
