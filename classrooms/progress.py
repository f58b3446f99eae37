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
from typing import Any, NamedTuple

import numpy as np
from django.db.models import (
    Avg,
    Count,
    Min,
    Q,
    QuerySet,
    Sum,
)

from accounts.models import User
from classrooms.models import Assignment, Classroom, Membership
from config.dbfunctions import AnyOf, Epoch
from course.models import LessonProgress
from quizzes.models import Question
from reviews.days import date_of_day, day_start_in
from reviews.models import Answer, Card, StudyDay, StudyTotal
from reviews.recall import recall_curve
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


class Member(NamedTuple):
    """What class progress needs of a member: who, and where their days begin."""

    pk: int
    username: str
    timezone: str
    day_starts_at_hour: int


def classroom_members(classroom: Classroom, *, only: int | None = None) -> list[Member]:
    """The current members by username, as plain rows (a thousand model instances would
    cost more than the query); `only`: that one member, if they are one."""
    users = User.objects.filter(memberships__classroom=classroom)
    if only is not None:
        users = users.filter(pk=only)
    return [
        Member(*row)
        for row in users.order_by("username", "pk").values_list(
            "pk", "username", "timezone", "day_starts_at_hour"
        )
    ]


def classroom_progress(
    *, classroom: Classroom, now: datetime, only: int | None = None
) -> list[LearnerProgress]:
    """One row per current member (`only`: that member's row alone, none if they are not
    one), ordered by username. Seven queries, whatever the size;
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
    users = classroom_members(classroom, only=only)
    if not users:
        return []
    # The ids as a list rather than a subquery: PostgreSQL then estimates the rows well and
    # scans the class's answers and cards instead of probing an index per learner and question
    # (one parameter each time: `AnyOf`).
    members = [user.pk for user in users]

    completions = list(
        LessonProgress.objects.filter(
            AnyOf("user_id", members),
            lesson__course_id=classroom.course_id,
            completed_at__isnull=False,
        ).values_list("user_id", "lesson_id", "completed_at")
    )
    todays = _todays(users, now=now)
    answered = _answer_figures(members, todays, course_id=classroom.course_id)
    cards = _card_figures(members, todays, course_id=classroom.course_id, now=now)
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
                    today=todays[user.pk].date,
                ),
                last_active=figures.last_active,
                assignments_done=sum(done[(a.pk, user.pk)] for a in assignments),
            )
        )
    return rows


@dataclass(frozen=True)
class _Today:
    """A learner's current study day: when it began (aware, in their zone), when it ends, and
    the date that names it."""

    start: datetime
    end: datetime
    date: date


def _todays(users: Sequence[Member], *, now: datetime) -> dict[int, _Today]:
    """Each learner's study day, worked out once per time zone and day-start hour."""
    seen: dict[tuple[str, int], _Today] = {}
    todays = {}
    for user in users:
        key = (user.timezone, user.day_starts_at_hour)
        if key not in seen:
            start = day_start_in(*key, now=now)
            # A day later on the learner's clock: 23 or 25 hours on the day clocks change.
            end = start + timedelta(days=1)
            seen[key] = _Today(start, end, date_of_day(start, hour=user.day_starts_at_hour))
        todays[user.pk] = seen[key]
    return todays


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
    members: list[int], todays: dict[int, _Today], *, course_id: int
) -> dict[int, _Answered]:
    """Reviews, scores, the last answer and the run of study days per learner from their
    course totals, and the week's reviews from their last seven study days: rollups of the
    review log (`reviews.rollups`), a row per learner in each of two queries, however long
    their history."""
    answered: dict[int, _Answered] = defaultdict(_Answered)
    totals = StudyTotal.objects.filter(AnyOf("user_id", members), course_id=course_id).values_list(
        "user_id", "reviews", "score", "last_at", "run_start", "run_end"
    )
    for user_id, reviews, score, last_at, run_start, run_end in totals:
        figures = answered[user_id]
        figures.answers, figures.score, figures.run = reviews, score, (run_start, run_end)
        figures.saw(last_at)
    # The learners' todays differ by a day or two across time zones: one sum per distinct
    # today, each over the seven days ending on it, and each learner takes their own.
    ends = sorted({today.date for today in todays.values()})
    sums = {
        f"week_{i}": Sum("reviews", filter=Q(day__gt=end - _WEEK, day__lte=end))
        for i, end in enumerate(ends)
    }
    column = {end: i + 1 for i, end in enumerate(ends)}
    weeks = (
        StudyDay.objects.filter(
            AnyOf("user_id", members),
            course_id=course_id,
            day__gt=ends[0] - _WEEK,
            day__lte=ends[-1],
        )
        .values("user_id")
        .annotate(**sums)
        .values_list("user_id", *sums)
        .order_by()
    )
    for row in weeks:
        answered[row[0]].reviews_7d = row[column[todays[row[0]].date]] or 0
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
    members: list[int], todays: dict[int, _Today], *, course_id: int, now: datetime
) -> _CardFigures:
    """Recall, due and overdue per learner from one query over the class's reviewed cards,
    all computed in the database: due and overdue against each learner's own day, recall by
    the engine's forgetting curve (its constants, with the default parameters)."""
    # Learners whose days begin and end at the same moments, wherever they are, share a test.
    same_day: dict[tuple[datetime, datetime], list[int]] = defaultdict(list)
    for user_id in members:
        same_day[todays[user_id].start, todays[user_id].end].append(user_id)

    def due_before(*, day_ends: bool) -> Q:
        return functools.reduce(
            operator.or_,
            (
                Q(due__lt=end if day_ends else start) & Q(AnyOf("user_id", ids))
                for (start, end), ids in same_day.items()
            ),
        )

    rows = (
        # A card's lesson is its question's, kept in step when content moves a question
        # (`reviews.deck`): the course's cards without a join through the questions.
        Card.objects.filter(AnyOf("user_id", members), lesson__course_id=course_id)
        .exclude(state=Card.State.NEW)
        .values("user_id")
        .annotate(
            # By the engine's forgetting curve, in the query (reviews.recall).
            recall=Avg(recall_curve(now), filter=Q(stability__gt=0, last_review__isnull=False)),
            due_count=Count("pk", filter=Q(suspended=False) & due_before(day_ends=True)),
            overdue_count=Count("pk", filter=Q(suspended=False) & due_before(day_ends=False)),
        )
        .values_list("user_id", "recall", "due_count", "overdue_count")
        .order_by()
    )
    by_user = {user_id: (recall, due, overdue) for user_id, recall, due, overdue in rows}
    empty = (None, 0, 0)
    return _CardFigures(
        mean_recall=[by_user.get(pk, empty)[0] for pk in members],
        due=[by_user.get(pk, empty)[1] for pk in members],
        overdue=[by_user.get(pk, empty)[2] for pk in members],
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
                    AnyOf("user_id", user_ids), lesson_id__in=lesson_ids, completed_at__isnull=False
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
                AnyOf("user_id", user_ids),
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
