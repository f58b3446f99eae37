"""Teachers' weekly digest: the week in each classroom, who is falling behind, the hardest
questions; once a week however often the task runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail

from accounts.models import Notification
from accounts.services import notification_emails_send
from classrooms import digests
from reviews.models import Answer, Card
from reviews.rollups import rebuild_everyone
from tests.factories import (
    ClassroomFactory,
    LessonFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)  # a Wednesday


def answered(user, question, *, score: float, days_ago: float) -> None:
    status = {1: "correct", 0: "incorrect"}.get(score, "partial")
    row = Answer.objects.create(
        user=user, question=question, question_version=1, mode="review", status=status,
        score=score,
    )  # fmt: skip
    Answer.objects.filter(pk=row.pk).update(created_at=NOW - timedelta(days=days_ago))


@pytest.fixture
def classroom():
    """Six learners: five answered both questions this week (the hard one mostly wrong), one
    has 12 cards overdue and one has not started."""
    room = ClassroomFactory(name="Evening class", teacher__email="teacher@example.com")
    lesson = LessonFactory(course=room.course, slug="the-mlp")
    easy, hard = QuestionFactory(lesson=lesson), QuestionFactory(lesson=lesson, key="hard-one")
    learners = [UserFactory(username=f"learner-{n}") for n in range(6)]
    for n, learner in enumerate(learners):
        MembershipFactory(classroom=room, user=learner)
        if n < 5:
            answered(learner, easy, score=1, days_ago=1)
            answered(learner, hard, score=1 if n == 0 else 0, days_ago=2)
    behind = learners[4]
    for question in QuestionFactory.create_batch(12, lesson=lesson):
        Card.objects.create(
            user=behind, question=question, state="review", stability=2.0, difficulty=5.0,
            last_review=NOW - timedelta(days=20), due=NOW - timedelta(days=10), reps=2, seed=1,
        )  # fmt: skip
    rebuild_everyone()  # the answers above were written straight to the log
    return room


def test_the_digest_names_the_week_the_laggards_and_the_hardest_question(classroom):
    notification = digests.teacher_digest(teacher=classroom.teacher, now=NOW)

    assert notification is not None
    assert notification.kind == Notification.Kind.DIGEST
    assert notification.key == "digest:2026-W49"
    assert notification.title == "Your classes, week of 30 November 2026"
    body = notification.body
    assert body.startswith(f"Evening class ({classroom.course.title})")
    assert "5 of 6 learners reviewed this week; 10 reviews in all." in body
    assert "Falling behind: learner-4 (12 cards overdue); learner-5 (not started)" in body
    assert body.endswith(
        "Hard question: hard-one (lesson the-mlp): 20% right on a first try, 5 learners"
    )
    (summary,) = notification.data["classrooms"]
    assert summary["learners"] == 6
    assert summary["behind"] == 2
    assert notification.email is True

    assert notification_emails_send(user_ids=[classroom.teacher_id], now=NOW) == 1
    assert mail.outbox[0].to == ["teacher@example.com"]
    assert mail.outbox[0].subject == notification.title


def test_the_digest_is_written_once_a_week(classroom):
    assert digests.teacher_digest(teacher=classroom.teacher, now=NOW) is not None
    assert digests.teacher_digest(teacher=classroom.teacher, now=NOW + timedelta(days=1)) is None
    assert digests.teacher_digest(teacher=classroom.teacher, now=NOW + timedelta(days=7))
    assert Notification.objects.filter(kind="digest").count() == 2


def test_no_learners_no_digest():
    empty = ClassroomFactory()
    assert digests.teacher_digest(teacher=empty.teacher, now=NOW) is None
    assert not Notification.objects.exists()


def test_the_sweep_hands_on_each_teacher_once(classroom):
    second = ClassroomFactory(teacher=classroom.teacher)
    other = ClassroomFactory()
    ClassroomFactory(teacher__is_active=False)
    handed: list[int] = []

    assert digests.teacher_digests_sweep(digest=handed.append, batch_size=1) == 2
    assert sorted(handed) == sorted([classroom.teacher_id, other.teacher_id])
    assert second.teacher_id == classroom.teacher_id
