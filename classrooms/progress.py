"""What a teacher sees of a classroom: each member's work on the classroom's course, and who
has done each assignment.

Only current members count, and only their work on the classroom's course. Every read costs a
fixed number of queries however many learners, cards and answers there are; per-learner
figures over cards are aggregated in the database, one row per learner.
"""

from __future__ import annotations

import functools
import operator
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
from django.db.models import (
    Avg,
    Count,
    Min,
    Q,
    QuerySet,
)

from accounts.models import User
from classrooms.models import Assignment, Classroom, Membership
from config.dbfunctions import Epoch
from course.models import LessonProgress
from quizzes.models import Question
from reviews.days import day_start, study_date
from reviews.models import Answer, Card, StudyDay, StudyTotal
from reviews.recall import recall_now
from reviews.rollups import streak_of

_WEEK = timedelta(days=7)


@dataclass(frozen=True)
class LearnerProgress:
    user_id: int
    username: str
    lessons_completed: int
    answers: int
    accuracy: float | None
    average_retrievability: float | None
    due: int
    overdue: int
    reviews_7d: int
    streak_days: int
    last_active: datetime | None
    assignments_done: int


PROGRESS_COLUMNS: tuple[str, ...] = tuple(LearnerProgress.__dataclass_fields__)


def member_ids(classroom: Classroom) -> QuerySet[Membership, Any]:
    """The current members' ids, as a subquery."""
    return Membership.objects.filter(classroom=classroom).values("user_id")


def course_question_ids(classroom: Classroom) -> QuerySet[Question, Any]:
    """The ids of every question of the classroom's course (archived ones too: work done on
    them is still the learner's work in the course), as a subquery."""
    return Question.objects.filter(lesson__course_id=classroom.course_id).values("pk")


def classroom_members(classroom: Classroom) -> list[User]:
    return list(
        User.objects.filter(memberships__classroom=classroom)
        .only("pk", "username", "timezone", "day_starts_at_hour")
        .order_by("username", "pk")
    )


def classroom_progress(*, classroom: Classroom, now: datetime) -> list[LearnerProgress]:
    """One row per current member, ordered by username. Seven queries, whatever the size;
    the figures over answers come from the review log's rollups (`reviews.rollups`).

    - lessons_completed: lessons of the course completed.
    - answers, accuracy: review-mode answers to the course's questions and their mean score
      (partial credit counts in part); accuracy is None without answers. Practice is the
      learner's own and counts for nothing here.
    - average_retrievability: mean chance of recall now over the learner's reviewed cards of
      the course (FSRS forgetting curve, whole days since the last review).
    - due: unsuspended cards due by the end of the learner's study day, overdue included;
      overdue: those due before the day began (days in the learner's zone and day-start hour).
    - reviews_7d: review-mode answers in the learner's last seven study days, today's too.
    - streak_days: consecutive study days with a review of the course, ending today.
    - last_active: the latest answer (any mode) or lesson completion in the course.
    - assignments_done: the classroom's assignments done before they were due (by when the
      server received the answers).
    """
    users = classroom_members(classroom)
    if not users:
        return []
    index = {user.pk: i for i, user in enumerate(users)}
    # The ids as a list rather than a subquery: PostgreSQL then estimates the rows well and
    # scans the class's answers and cards instead of probing an index per learner and question.
    members = list(index)
    questions = course_question_ids(classroom)

    completions = list(
        LessonProgress.objects.filter(
            user_id__in=members,
            lesson__course_id=classroom.course_id,
            completed_at__isnull=False,
        ).values_list("user_id", "lesson_id", "completed_at")
    )
    answered = _answer_figures(users, course_id=classroom.course_id, now=now)
    cards = _card_figures(users, questions=questions, now=now)
    assignments = list(Assignment.objects.filter(classroom=classroom).order_by("due_at", "pk"))
    done = assignments_done(assignments=assignments, user_ids=members, completions=completions)

    lessons_done: dict[int, int] = defaultdict(int)
    for user_id, _, completed_at in completions:
        lessons_done[user_id] += 1
        if completed_at is not None:
            answered[user_id].saw(completed_at)

    rows = []
    for i, user in enumerate(users):
        figures = answered[user.pk]
        rows.append(
            LearnerProgress(
                user_id=user.pk,
                username=user.username,
                lessons_completed=lessons_done[user.pk],
                answers=figures.answers,
                accuracy=figures.score / figures.answers if figures.answers else None,
                average_retrievability=cards.mean_recall[i],
                due=cards.due[i],
                overdue=cards.overdue[i],
                reviews_7d=figures.reviews_7d,
                streak_days=streak_of(
                    run_start=figures.run[0],
                    run_end=figures.run[1],
                    today=study_date(user=user, now=now),
                ),
                last_active=figures.last_active,
                assignments_done=sum(done[(a.pk, user.pk)] for a in assignments),
            )
        )
    return rows


@dataclass
class _Answered:
    answers: int = 0
    score: float = 0.0
    reviews_7d: int = 0
    last_active: datetime | None = None
    run: tuple[date | None, date | None] = (None, None)

    def saw(self, moment: datetime) -> None:
        if self.last_active is None or moment > self.last_active:
            self.last_active = moment


def _answer_figures(
    users: Sequence[User], *, course_id: int, now: datetime
) -> dict[int, _Answered]:
    """Reviews, scores, the last answer and the run of study days per learner from their
    course totals, and the week's reviews from their last seven study days: rollups of the
    review log (`reviews.rollups`), a row per learner and a few per learner's week, however
    long their history."""
    members = [u.pk for u in users]
    answered: dict[int, _Answered] = defaultdict(_Answered)
    totals = StudyTotal.objects.filter(user_id__in=members, course_id=course_id).values_list(
        "user_id", "reviews", "score", "last_at", "run_start", "run_end"
    )
    for user_id, reviews, score, last_at, run_start, run_end in totals:
        figures = answered[user_id]
        figures.answers, figures.score, figures.run = reviews, score, (run_start, run_end)
        figures.saw(last_at)
    today = {u.pk: study_date(user=u, now=now) for u in users}
    week = StudyDay.objects.filter(
        user_id__in=members,
        course_id=course_id,
        day__gte=min(today.values()) - _WEEK + timedelta(days=1),
        reviews__gt=0,
    ).values_list("user_id", "day", "reviews")
    for user_id, day, reviews in week:
        if today[user_id] - _WEEK < day <= today[user_id]:
            answered[user_id].reviews_7d += reviews
    return answered


def positions(index: dict[int, int], ids: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Each id's position in `index`, or -1 for an id not there (a learner who joined after
    the member list was read)."""
    if not index:
        return np.full(len(ids), -1, dtype=np.int64)
    keys = np.array(list(index), dtype=np.float64)
    values = np.array(list(index.values()), dtype=np.int64)
    order = np.argsort(keys)
    keys, values = keys[order], values[order]
    at = np.minimum(np.searchsorted(keys, ids), len(keys) - 1)
    return np.where(keys[at] == ids, values[at], -1)


@dataclass(frozen=True)
class _CardFigures:
    mean_recall: list[float | None]
    due: list[int]
    overdue: list[int]


def _card_figures(
    users: Sequence[User], *, questions: QuerySet[Any, Any], now: datetime
) -> _CardFigures:
    """Recall, due and overdue per learner from one query over the class's reviewed cards,
    all computed in the database: due and overdue against each learner's own day, recall by
    the engine's forgetting curve (its constants, with the default parameters)."""
    starts: dict[tuple[str, int], list[int]] = defaultdict(list)
    today: dict[tuple[str, int], datetime] = {}
    for user in users:
        key = (user.timezone, user.day_starts_at_hour)
        starts[key].append(user.pk)
        today[key] = day_start(user=user, now=now)

    def due_before(shift: timedelta) -> Q:
        return functools.reduce(
            operator.or_,
            (Q(user_id__in=ids, due__lt=today[key] + shift) for key, ids in starts.items()),
        )

    rows = (
        Card.objects.filter(user_id__in=[u.pk for u in users], question_id__in=questions)
        .exclude(state=Card.State.NEW)
        .values("user_id")
        .annotate(
            # By the engine's forgetting curve, in the query (reviews.recall).
            recall=Avg(recall_now(now), filter=Q(stability__gt=0, last_review__isnull=False)),
            due_count=Count("pk", filter=Q(suspended=False) & due_before(timedelta(days=1))),
            overdue_count=Count("pk", filter=Q(suspended=False) & due_before(timedelta(0))),
        )
        .values_list("user_id", "recall", "due_count", "overdue_count")
        .order_by()
    )
    by_user = {user_id: (recall, due, overdue) for user_id, recall, due, overdue in rows}
    empty = (None, 0, 0)
    return _CardFigures(
        mean_recall=[by_user.get(u.pk, empty)[0] for u in users],
        due=[by_user.get(u.pk, empty)[1] for u in users],
        overdue=[by_user.get(u.pk, empty)[2] for u in users],
    )


def assignments_done(
    *,
    assignments: Sequence[Assignment],
    user_ids: Sequence[int],
    completions: Sequence[tuple[int, int, datetime | None]] | None = None,
) -> dict[tuple[int, int], bool]:
    """Whether each learner did each assignment: its lesson completed and each of its questions
    answered with full marks in review at least once, all before it was due. An answer is
    judged by when the server received it: a device's clock says when a review was made, and
    could say anything. At most two queries (none for lesson completions already read by the
    caller)."""
    if not assignments or not user_ids:
        return {}
    lesson_ids = {a.lesson_id for a in assignments if a.lesson_id is not None}
    question_ids = {q for a in assignments for q in a.question_ids}
    if completions is None:
        completions = (
            list(
                LessonProgress.objects.filter(
                    user_id__in=user_ids, lesson_id__in=lesson_ids, completed_at__isnull=False
                ).values_list("user_id", "lesson_id", "completed_at")
            )
            if lesson_ids
            else []
        )
    completed = {(user_id, lesson_id): at for user_id, lesson_id, at in completions}
    first_right: dict[tuple[int, int], float] = {}
    if question_ids:
        first_right = {
            (row["user_id"], row["question_id"]): row["first"]
            for row in Answer.objects.filter(
                user_id__in=user_ids,
                question_id__in=question_ids,
                mode=Answer.Mode.REVIEW,
                score__gte=1,
            )
            .values("user_id", "question_id")
            .annotate(first=Epoch(Min("received_at")))
            .order_by()
        }

    def before(moment: datetime | float | None, due_at: datetime) -> bool:
        if isinstance(moment, float):
            return moment <= due_at.timestamp()
        return moment is not None and moment <= due_at

    return {
        (a.pk, user_id): (
            (a.lesson_id is None or before(completed.get((user_id, a.lesson_id)), a.due_at))
            and all(before(first_right.get((user_id, q)), a.due_at) for q in a.question_ids)
        )
        for a in assignments
        for user_id in user_ids
    }
