"""Rollups of the review log: each learner's work per course and study day (`StudyDay`), and
per course in all with their current run of study days (`StudyTotal`). The interview bank's
questions are in no course: their work is summed under no course (`None`).

What teachers and learners look at (class progress, the stats' heatmap and streak, the
digests) reads these instead of every answer ever given, so it costs what it shows. They are
derived, never the truth: `record` adds new answers in the transaction that writes them,
`refresh` sums a few days again from the log after an answer is taken back, and `rebuild`
makes a learner's rollups afresh from the log (after a change of time zone or day-start
hour, or by `manage.py rollups_rebuild`).

A learner's rows are written in one order, the course's total before its days, and
`rebuild` locks the totals before it reads the log: an answer written meanwhile either
commits first (and is read) or waits and adds itself to the rebuilt rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db import connection, transaction
from django.db.models import Max, Q, Sum

from accounts.models import User
from config import rows
from quizzes.models import Question
from reviews.models import Answer, StudyDay, StudyTotal

Course = int | None
"""A course's id, or None for the interview bank."""

_SUMS = ("answers", "reviews", "correct", "score", "mature", "passed", "time_ms")
_TOTAL_SUMS = ("answers", "reviews", "correct", "score", "time_ms")


def study_date_at(*, user: User, moment: datetime) -> date:
    """The study day a moment belongs to, in the learner's days (as `reviews.days`)."""
    local = moment.astimezone(ZoneInfo(user.timezone))
    return (local - timedelta(hours=user.day_starts_at_hour)).date()


@dataclass
class Sums:
    """What a set of answers adds to a rollup."""

    answers: int = 0
    reviews: int = 0
    correct: int = 0
    score: float = 0.0
    mature: int = 0
    passed: int = 0
    time_ms: int = 0
    last_at: datetime | None = None

    @property
    def latest(self) -> datetime:
        """The latest answer's time (summed answers have one)."""
        assert self.last_at is not None
        return self.last_at

    def add(
        self,
        *,
        mode: str,
        score: float,
        before: str | None,
        rating: int | None,
        duration_ms: int | None,
        at: datetime,
    ) -> None:
        self.answers += 1
        self.time_ms += duration_ms or 0
        if self.last_at is None or at > self.last_at:
            self.last_at = at
        if mode != Answer.Mode.REVIEW:
            return
        self.reviews += 1
        self.score += score
        self.correct += score >= 1
        if before == "review":
            self.mature += 1
            self.passed += (rating or 1) > 1


def _of(answer: Answer) -> dict[str, Any]:
    return {
        "mode": answer.mode,
        "score": answer.score,
        "before": (answer.card_before or {}).get("state"),
        "rating": answer.rating,
        "duration_ms": answer.duration_ms,
        "at": answer.created_at,
    }


def courses_of(question_ids: Iterable[int]) -> dict[int, Course]:
    """Each question's course (None for the interview bank's), in one query."""
    return dict(
        Question.objects.filter(pk__in=set(question_ids)).values_list("pk", "lesson__course_id")
    )


def record(
    *, user: User, answers: Sequence[Answer], courses: dict[int, Course] | None = None
) -> None:
    """Adds answers just written to the learner's rollups, in the caller's transaction: the
    totals of the courses touched, then their days, in one statement on PostgreSQL (two
    elsewhere). `courses` maps each question to its course (read here when not given)."""
    if answers:
        rows.write_together(recording(user=user, answers=answers, courses=courses))


def recording(
    *, user: User, answers: Sequence[Answer], courses: dict[int, Course] | None = None
) -> list[rows.Write]:
    """`record`'s writes, to go with others (`rows.write_together`): the totals of the courses
    touched and their days (the bank's in statements of their own, which name its unique
    constraints). `courses` maps each question to its course (read now when not given)."""
    if courses is None or any(a.question_id not in courses for a in answers):
        courses = courses_of(a.question_id for a in answers)
    days: dict[tuple[Course, date], Sums] = defaultdict(Sums)
    totals: dict[Course, Sums] = defaultdict(Sums)
    studied: dict[Course, set[date]] = defaultdict(set)
    for answer in answers:
        course, facts = courses[answer.question_id], _of(answer)
        day = study_date_at(user=user, moment=answer.created_at)
        days[(course, day)].add(**facts)
        totals[course].add(**facts)
        if answer.mode == Answer.Mode.REVIEW:
            studied[course].add(day)

    def runs_checked(runs: list[dict[str, Any]]) -> None:
        for course, start in ((run["course_id"], _as_date(run["run_start"])) for run in runs):
            if start is not None and start - timedelta(days=1) in studied[course]:
                # A review of the day before the run began (made offline): runs may join.
                _run_write(user=user, course_id=course)

    writes = []
    for bank in (False, True):
        group = {course: sums for course, sums in totals.items() if (course is None) == bank}
        if not group:
            continue
        totals_sql, totals_params = _totals_statement(user, group, studied, bank=bank)
        days_sql, days_params = _days_statement(
            user, {key: sums for key, sums in days.items() if (key[0] is None) == bank}, bank=bank
        )
        writes += [
            rows.Write(totals_sql, totals_params, runs_checked),
            rows.Write(days_sql + " RETURNING day", days_params),
        ]
    return writes


def _in_order(key: Any) -> tuple[Any, ...]:
    """A sort key for courses (or (course, day) pairs) that puts the bank's (None) last."""
    course, *rest = key if isinstance(key, tuple) else (key,)
    return (course is None, course or 0, *rest)


def _conflict(*columns: str, bank: bool) -> str:
    """The unique constraint an upsert meets: the course's, or the bank's (a partial one,
    without the course)."""
    if bank:
        return f"({', '.join(c for c in columns if c != 'course_id')}) WHERE course_id IS NULL"
    return f"({', '.join(columns)})"


def _next_day(column: str) -> str:
    if connection.vendor == "postgresql":
        return f"({column} + 1)"
    return f"date({column}, '+1 day')"


def _totals_statement(
    user: User, totals: dict[Course, Sums], studied: dict[Course, set[date]], *, bank: bool
) -> tuple[str, list[Any]]:
    """The statement that adds to each course's total and moves its run on by the latest run
    of the days reviewed; it returns each run's start as it stands."""
    table = StudyTotal._meta.db_table
    names = ", ".join(_TOTAL_SUMS)
    added = ", ".join(f"{name} = {table}.{name} + excluded.{name}" for name in _TOTAL_SUMS)
    row = "(" + ", ".join(["%s"] * (len(_TOTAL_SUMS) + 5)) + ")"
    day, moment = connection.ops.adapt_datefield_value, connection.ops.adapt_datetimefield_value
    params: list[Any] = []
    target = _conflict("user_id", "course_id", bank=bank)
    for course, sums in sorted(totals.items(), key=lambda item: _in_order(item[0])):
        first, last = _latest_run(studied[course])
        params += [user.pk, course, *(getattr(sums, name) for name in _TOTAL_SUMS)]
        params += [moment(sums.last_at), day(first), day(last)]
    return (
        f"INSERT INTO {table} (user_id, course_id, {names}, last_at, run_start, run_end) "
        f"VALUES {', '.join([row] * len(totals))} "
        f"ON CONFLICT {target} DO UPDATE SET {added}, "
        f"last_at = CASE WHEN excluded.last_at > {table}.last_at "
        f"THEN excluded.last_at ELSE {table}.last_at END, "
        # A run later than the stored run's end, and not next to it, starts afresh; one that
        # joins it, or lies before it, leaves the start where it was.
        f"run_start = CASE WHEN excluded.run_end IS NULL THEN {table}.run_start "
        f"WHEN {table}.run_end IS NULL "
        f"OR excluded.run_start > {_next_day(f'{table}.run_end')} THEN excluded.run_start "
        f"ELSE {table}.run_start END, "
        f"run_end = CASE WHEN excluded.run_end IS NULL THEN {table}.run_end "
        f"WHEN {table}.run_end IS NULL OR excluded.run_end > {table}.run_end "
        f"THEN excluded.run_end ELSE {table}.run_end END "
        f"RETURNING course_id, run_start",
        params,
    )


def _days_statement(
    user: User, days: dict[tuple[Course, date], Sums], *, bank: bool
) -> tuple[str, list[Any]]:
    """The statement that adds to each day's sums."""
    table = StudyDay._meta.db_table
    names = ", ".join(_SUMS)
    added = ", ".join(f"{name} = {table}.{name} + excluded.{name}" for name in _SUMS)
    row = "(" + ", ".join(["%s"] * (len(_SUMS) + 4)) + ")"
    date_value, moment = (
        connection.ops.adapt_datefield_value,
        connection.ops.adapt_datetimefield_value,
    )
    params: list[Any] = []
    target = _conflict("user_id", "course_id", "day", bank=bank)
    for (course, day), sums in sorted(days.items(), key=lambda item: _in_order(item[0])):
        params += [user.pk, course, date_value(day), *(getattr(sums, n) for n in _SUMS)]
        params.append(moment(sums.last_at))
    return (
        f"INSERT INTO {table} (user_id, course_id, day, {names}, last_at) "
        f"VALUES {', '.join([row] * len(days))} "
        f"ON CONFLICT {target} DO UPDATE SET {added}, "
        f"last_at = CASE WHEN excluded.last_at > {table}.last_at "
        f"THEN excluded.last_at ELSE {table}.last_at END",
        params,
    )


def _latest_run(days: Iterable[date]) -> tuple[date | None, date | None]:
    """The first and last day of the latest unbroken run among `days`."""
    ordered = sorted(days, reverse=True)
    if not ordered:
        return None, None
    start = ordered[0]
    for day in ordered[1:]:
        if day != start - timedelta(days=1):
            break
        start = day
    return start, ordered[0]


def _as_date(value: date | str | None) -> date | None:
    return date.fromisoformat(value) if isinstance(value, str) else value


def _run_write(*, user: User, course_id: Course) -> None:
    """The run read again from the learner's days of the course."""
    reviewed = StudyDay.objects.filter(_the(course_id), user=user, reviews__gt=0)
    start, end = _latest_run(reviewed.values_list("day", flat=True))
    StudyTotal.objects.filter(_the(course_id), user=user).update(run_start=start, run_end=end)


def _the(course_id: Course) -> Q:
    """A rollup of the course, or (None) of the interview bank."""
    return Q(course__isnull=True) if course_id is None else Q(course_id=course_id)


def _log_sums(
    *, user: User, answers: Any, course_of: Callable[[int], Course], days: set[date] | None = None
) -> dict[tuple[Course, date], Sums]:
    """Sums of answers read from the log, by course and study day (only `days`, if given)."""
    sums: dict[tuple[Course, date], Sums] = defaultdict(Sums)
    logged = answers.values_list(
        "question_id", "mode", "score", "card_before__state", "rating", "duration_ms", "created_at"
    ).order_by()
    for question_id, mode, score, before, rating, duration_ms, at in logged.iterator(5_000):
        day = study_date_at(user=user, moment=at)
        if days is not None and day not in days:
            continue
        sums[(course_of(question_id), day)].add(
            mode=mode, score=score, before=before, rating=rating, duration_ms=duration_ms, at=at
        )
    return sums


def _day_rows(user: User, sums: dict[tuple[Course, date], Sums]) -> list[StudyDay]:
    return [
        StudyDay(
            user=user,
            course_id=course,
            day=day,
            last_at=each.latest,
            **{name: getattr(each, name) for name in _SUMS},
        )
        for (course, day), each in sorted(sums.items(), key=lambda item: _in_order(item[0]))
    ]


def refresh(*, user: User, course_id: Course, days: set[date]) -> None:
    """Sums `days` of a course again from the log, and the course's total from its days; for
    an answer taken back or turned into practice. Bounded by those days and the learner's
    days of the course, not by their answers."""
    with transaction.atomic():
        list(StudyTotal.objects.select_for_update().filter(_the(course_id), user=user))
        zone = ZoneInfo(user.timezone)
        # A day and a little on each side: what falls in it is decided by `study_date_at`.
        ranges = Q()
        for day in days:
            start = datetime.combine(day, time(user.day_starts_at_hour), tzinfo=zone)
            ranges |= Q(created_at__gte=start - timedelta(days=1)) & Q(
                created_at__lt=start + timedelta(days=2)
            )
        answers = Answer.objects.filter(ranges, _of_course(course_id), user=user)
        sums = _log_sums(user=user, answers=answers, course_of=lambda _: course_id, days=days)
        StudyDay.objects.filter(_the(course_id), user=user, day__in=days).delete()
        StudyDay.objects.bulk_create(_day_rows(user, sums))
        _total_write(user=user, course_id=course_id)


def _of_course(course_id: Course) -> Q:
    """Answers to the course's questions, or (None) to the interview bank's."""
    if course_id is None:
        return Q(question__lesson__isnull=True)
    return Q(question__lesson__course_id=course_id)


def _total_write(*, user: User, course_id: Course) -> None:
    """The course's total summed from its days (none left: no total)."""
    days = StudyDay.objects.filter(_the(course_id), user=user)
    summed = days.aggregate(last_at=Max("last_at"), **{name: Sum(name) for name in _TOTAL_SUMS})
    total = StudyTotal.objects.filter(_the(course_id), user=user)
    if summed["last_at"] is None:
        total.delete()
        return
    start, end = _latest_run(days.filter(reviews__gt=0).values_list("day", flat=True))
    fields = {**summed, "run_start": start, "run_end": end}
    if not total.update(**fields):
        StudyTotal.objects.create(user=user, course_id=course_id, **fields)


def rebuild(*, user: User) -> int:
    """Makes the learner's rollups afresh from their whole log; returns the days written."""
    with transaction.atomic():
        list(StudyTotal.objects.select_for_update().filter(user=user).order_by("course_id"))
        answers = Answer.objects.filter(user=user)
        courses = courses_of(answers.values_list("question_id", flat=True).distinct())
        sums = _log_sums(user=user, answers=answers, course_of=courses.__getitem__)
        StudyDay.objects.filter(user=user).delete()
        StudyTotal.objects.filter(user=user).delete()
        made = _day_rows(user, sums)
        StudyDay.objects.bulk_create(made, batch_size=2_000)
        totals: dict[Course, Sums] = defaultdict(Sums)
        studied: dict[Course, list[date]] = defaultdict(list)
        for row in made:
            total = totals[row.course_id]
            for name in _TOTAL_SUMS:
                setattr(total, name, getattr(total, name) + getattr(row, name))
            if total.last_at is None or row.last_at > total.last_at:
                total.last_at = row.last_at
            if row.reviews:
                studied[row.course_id].append(row.day)
        StudyTotal.objects.bulk_create(
            StudyTotal(
                user=user,
                course_id=course,
                run_start=(run := _latest_run(studied[course]))[0],
                run_end=run[1],
                last_at=total.latest,
                **{name: getattr(total, name) for name in _TOTAL_SUMS},
            )
            for course, total in sorted(totals.items(), key=lambda item: _in_order(item[0]))
        )
        return len(made)


def streak_of(*, run_start: date | None, run_end: date | None, today: date) -> int:
    """The streak a run makes today: its length if it reaches today or yesterday (a young
    day has not broken it), otherwise none. Days after today do not count."""
    if run_start is None or run_end is None:
        return 0
    end = min(run_end, today)
    if end < today - timedelta(days=1) or run_start > end:
        return 0
    return (end - run_start).days + 1


def rebuild_everyone(*, user_ids: Sequence[int] | None = None, batch_size: int = 500) -> int:
    """Rebuilds every learner's rollups who has answers or rollups (or those of `user_ids`),
    one learner per transaction; returns how many learners."""
    if user_ids is None:
        learners = User.objects.filter(
            Q(pk__in=Answer.objects.values("user_id"))
            | Q(pk__in=StudyDay.objects.values("user_id"))
        )
    else:
        learners = User.objects.filter(pk__in=user_ids)
    learners = learners.only("pk", "timezone", "day_starts_at_hour").order_by("pk")
    done, after = 0, 0
    while batch := list(learners.filter(pk__gt=after)[:batch_size]):
        for user in batch:
            rebuild(user=user)
        done += len(batch)
        after = batch[-1].pk
    return done
