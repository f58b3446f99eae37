"""The daily review queue: due cards first, then new questions, within the learner's limits.

Days are the learner's own: they start at `day_starts_at_hour` in the learner's time zone.
A card in the review phase is due all through the learner's day it falls due in (one studied at
a slightly earlier hour than the day before would otherwise wait a whole day, and be recalled
less), unless it is a day apart (see `SHORT_INTERVAL`): that one is due at its time. A
learning card, due minutes after its last step, counts as due within the learn-ahead window.
Suspended cards stay out, and so do a card the learner buried and the siblings of a card
answered today: the new questions of the same lesson wait until the next day. Its due cards
come all the same: in `bench.simulate`, holding them back too cost about a point of
retention. A learner without Pro gets no Pro question. Overdue cards come lowest chance of
recall first, then the others due today, soonest first. New questions come in course order
from the learner's new cards (made ahead, see `reviews.deck`). A fixed number of queries,
each an index range read of a bounded length, however large the deck.

The interview bank's questions are in no lesson: their cards come when due like any other
(in a queue narrowed to no course or lesson), have no siblings, and never come as new (a bank
question joins the schedule when the learner practises it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import (
    Count,
    F,
    Prefetch,
    Q,
    QuerySet,
    prefetch_related_objects,
)

from accounts.models import User
from config import rows
from config.dbfunctions import AnyOf
from course import revisions
from course.models import Lesson
from course.selectors import user_is_pro
from engine.scheduling import retrievability
from quizzes.models import Choice, Question
from quizzes.selectors import open_with, questions_closed, questions_to_serve
from reviews.days import day_start
from reviews.deck import deck_refresh
from reviews.models import Answer, Card

LEARN_AHEAD = timedelta(minutes=20)
SHORT_INTERVAL = timedelta(days=2)
"""A review card scheduled less than this after its last review (a day apart) is due at its
time, not all through its day nor within the learn-ahead: reviewed even a minute early, its
interval counts as no whole day, and the review hardly strengthens it, so it comes back the
next day, and the next. In `bench.simulate`, due all day such cards cost about a tenth more
answers per remembered question (`--due any-day`), and within the learn-ahead half as many
again for learners who study at the same hour every day."""
DAY_AND_A_HALF = timedelta(hours=36)  # from a day's start, always within the next day
_TICK = timedelta(microseconds=1)  # the last moment of a day is its end less this
quote = connection.ops.quote_name


@dataclass(frozen=True)
class Queue:
    due_count: int
    new_count: int
    cards: list[Card]
    new_questions: list[Question]
    reviews_today: int
    new_today: int


def review_queue(
    *, user: User, now: datetime, limit: int, course: str = "", lesson: str = ""
) -> Queue:
    deck_refresh(user=user, now=now)
    started = day_start(user=user, now=now)
    # Today's reviews per question: the day's counts, and the lessons whose new questions wait.
    today = _today.fetch(user_id=user.pk, started=started)
    reviews_today = sum(reviews for _, _, reviews, _ in today)
    new_today = sum(new for _, _, _, new in today)
    reviews_left = max(user.reviews_per_day - reviews_today, 0)
    new_left = max(user.new_cards_per_day - new_today, 0)
    waiting = {lesson_id for _, lesson_id, _, _ in today if lesson_id is not None}
    revision = revisions.current()
    closed = questions_closed(revision=revision)
    # With lessons waiting, new cards are read a lesson at a time from the others, so a
    # lesson with many new cards waiting costs nothing to leave out.
    lessons = (
        _open_lessons(course=course, lesson=lesson, waiting=waiting, revision=revision)
        if waiting
        else None
    )
    # Pro questions stay out for a learner without Pro (one who had it keeps their cards).
    pro = user_is_pro(user)
    # Due today (learning cards: within the learn-ahead window); a buried card waits for the
    # day after it was buried.
    values = {
        "user_id": user.pk,
        "now": now,
        "due_before": now + LEARN_AHEAD,
        "due_by": max(
            day_start(user=user, now=started + DAY_AND_A_HALF) - _TICK, now + LEARN_AHEAD
        ),
    }
    # The course or lesson the queue is narrowed to, where asked.
    scope = {name: slug for name, slug in (("course", course), ("lesson", lesson)) if slug}
    # Due cards come whatever lessons wait: holding a due review back a day costs recall
    # (`bench.simulate --siblings`).
    due_first = _first(False, ("due", "pk"), pro=pro, scope=scope, values=values)
    chosen, ranked = _most_urgent(
        due_first, user=user, now=now, count=min(limit, reviews_left), candidates=reviews_left
    )
    # Counted only as far as today's limit: what can be done today, at the cost of a page
    # (no more than was ranked, unless the learner's limit is higher than that).
    due_count = ranked if reviews_left <= CANDIDATES else len(due_first(("pk",), reviews_left))

    # New cards in course order, up to today's limit (counted) of which a page is served;
    # either way the read walks an index and stops early.
    order = ("lesson_number", "position", "question_id")
    values = {"user_id": user.pk, "now": now}
    if lessons is None:
        fresh_first = _first(True, order, pro=pro, scope=scope, values=values)
    else:
        not_new = closed.for_new(user)
        fresh_first = _first(
            True,
            order,
            values=values,
            lessons={
                pk: not_new.get(pk, ()) for pk in lessons if pk not in closed.archived_lessons
            },
            in_lesson=order[1:],
        )
    new = fresh_first(_NEW_FIELDS, new_left)
    room = min(max(limit - len(chosen), 0), new_left)
    cards = _with_questions([_card(_DUE_FIELDS, row) for row in chosen], revision)
    new_cards = _with_questions([_card(_NEW_FIELDS, row) for row in new[:room]], revision)
    return Queue(
        due_count=due_count,
        new_count=len(new),
        cards=cards,
        new_questions=[card.question for card in new_cards],
        reviews_today=reviews_today,
        new_today=new_today,
    )


def _answered_today(*, user_id: int, started: datetime) -> QuerySet[Answer, Any]:
    """(question, its lesson, reviews, reviews of a new card) for today's reviews."""
    return (
        Answer.objects.filter(user_id=user_id, mode=Answer.Mode.REVIEW, created_at__gte=started)
        .values("question_id", "question__lesson_id")
        .annotate(reviews=Count("pk"), new=Count("pk", filter=Q(card_before__state="new")))
        .values_list("question_id", "question__lesson_id", "reviews", "new")
        .order_by()
    )


_today = rows.Prepared(_answered_today)


# What the queue reads of a card, in the model's field order (`Model.from_db` takes them so).
_DUE_FIELDS = ("pk", "question_id", "state", "due")
_NEW_FIELDS = ("pk", "question_id")


def _card(fields: tuple[str, ...], row: Sequence[Any]) -> Card:
    """A card as the queue read it: these fields, the others deferred (as `only()` gives)."""
    names = ["id" if name == "pk" else name for name in fields]
    return Card.from_db(Card.objects.db, names, list(row[: len(fields)]))


def _with_questions(cards: list[Card], revision: int) -> list[Card]:
    """The cards, each with its question (lesson, course, section and choices in order) as
    kept for the content revision: served questions cost no query while the content stays,
    and those not kept yet are read together. A card whose question has left the content
    since (archived) has it read as it is."""
    kept = questions_to_serve(question_ids=[c.question_id for c in cards], revision=revision)
    gone = []
    for card in cards:
        if card.question_id in kept:
            card.question = kept[card.question_id]
        else:
            gone.append(card)
    if gone:
        prefetch_related_objects(
            gone,
            "question__lesson__course",
            "question__section",
            Prefetch("question__choices", queryset=Choice.objects.order_by("position")),
        )
    return cards


CANDIDATES = 200
"""How many of the earliest due cards are ranked by their chance of recall (at least the
largest page the queue serves)."""


def _most_urgent(
    due_first: _Reader, *, user: User, now: datetime, count: int, candidates: int
) -> tuple[list[tuple[Any, ...]], int]:
    """The `count` cards to review first (rows of `_DUE_FIELDS`), out of the earliest due (at
    most `candidates` of them), and how many were ranked.

    Overdue cards come lowest chance of recall first (the most overdue for their stability),
    then the others due today (or within the learn-ahead window), soonest first. The chance
    of recall depends on the time now, so no index holds that order; ranking the
    `CANDIDATES` earliest due keeps the read a bounded index range, and a card left out of
    them is among the next ones as soon as those are reviewed.
    """
    if candidates <= 0:
        return [], 0
    fields = (*_DUE_FIELDS, "stability", "last_review")
    rows = due_first(fields, min(CANDIDATES, candidates))
    stability = [math.nan if row[4] is None else row[4] for row in rows]
    elapsed = [math.nan if row[5] is None else (now - row[5]).days for row in rows]
    chance = retrievability(stability, elapsed, user.scheduler_parameters or None).tolist()
    # Rows come soonest due first; the sort is stable, so ties keep that order.
    order = sorted(
        range(len(rows)),
        key=lambda i: (0, chance[i]) if rows[i][3] <= now else (1, 0.0),
    )
    return [rows[i] for i in order[:count]], len(rows)


_Reader = Callable[[Sequence[str], int], list[tuple[Any, ...]]]


def _cards(
    new: bool,
    *,
    user_id: int,
    now: datetime,
    due_before: datetime | None = None,
    due_by: datetime | None = None,
) -> QuerySet[Card]:
    """The learner's cards that may come now: not suspended, not buried, and either new or
    due: in the review phase, by `due_by` (today's last moment, or later within the
    learn-ahead), or by now when a day apart (`SHORT_INTERVAL`); learning, by `due_before`.
    One index range (the day's), less the few cards due later today."""
    cards = Card.objects.filter(user_id=user_id, suspended=False)
    if new:
        cards = cards.filter(state=Card.State.NEW)
    else:
        cards = (
            cards.filter(due__lte=due_by)
            .exclude(state=Card.State.NEW)
            .exclude(~Q(state=Card.State.REVIEW), due__gt=due_before)
            .exclude(
                Q(state=Card.State.REVIEW, last_review__gt=F("due") - SHORT_INTERVAL),
                due__gt=now,
            )
        )
    return cards.exclude(buried_until__gt=now)


def _in_scope(
    new: bool,
    pro: bool,
    columns: tuple[str, ...],
    order: tuple[str, ...],
    *,
    course: str = "",
    lesson: str = "",
    **values: Any,
) -> QuerySet[Card, Any]:
    """`_cards` open to the learner in the course or lesson (those given), in `order`, read
    from one range."""
    cards = _cards(new, **values).filter(open_with(pro=pro, via="question__"))
    if new:
        cards = cards.filter(
            lesson__isnull=False,
            question__archived_at__isnull=True,
            question__lesson__archived_at__isnull=True,
        )
    if course:
        cards = cards.filter(question__lesson__course__slug=course)
    if lesson:
        cards = cards.filter(question__lesson__slug=lesson)
    return cards.order_by(*order).values_list(*columns)


def _in_lesson(
    new: bool,
    columns: tuple[str, ...],
    order: tuple[str, ...],
    *,
    lesson_id: int,
    left_out: list[int],
    **values: Any,
) -> QuerySet[Card, Any]:
    """`_cards` of one lesson but those of the questions `left_out`, in `order`."""
    return (
        _cards(new, **values)
        .filter(~Q(AnyOf("question_id", left_out)), lesson_id=lesson_id)
        .order_by(*order)
        .values_list(*columns)
    )


_scoped_read = rows.Prepared(_in_scope)
_lesson_read = rows.Prepared(_in_lesson)


def _first(
    new: bool,
    order: tuple[str, ...],
    *,
    values: dict[str, Any],
    pro: bool = False,
    scope: dict[str, str] | None = None,
    lessons: dict[int, tuple[int, ...]] | None = None,
    in_lesson: tuple[str, ...] | None = None,
) -> _Reader:
    """A reader of the first `n` of `_cards(new, **values)` in `order`, as rows of the fields
    asked for: from one index range of those open to the learner (`pro`) in the `scope`, or
    with `lessons` (each lesson's id with the questions it must leave out), from a range in
    each of those lessons (read in `in_lesson` order, the same as `order` within one lesson),
    merged by the database (each range stops at `n`). The reads a lesson at a time touch the
    card table only, so the database plans each in a moment however many lessons there are.
    Each read is compiled once per shape (`config.rows.Prepared`)."""

    def read(fields: Sequence[str], n: int) -> list[tuple[Any, ...]]:
        if n <= 0:
            return []
        if lessons is None:
            # Which of course and lesson are given is part of the shape (`Prepared` keys its
            # SQL by the names of the values too).
            shape = (new, pro, tuple(fields), order)
            return _scoped_read.fetch(shape, limit=n, **values, **(scope or {}))
        if connection.vendor != "postgresql":
            # Elsewhere the same cards from one read, which may pass the waiting ones by.
            left = [pk for ids in lessons.values() for pk in ids]
            either = Q(lesson_id__in=lessons) & ~Q(question_id__in=left)
            cards = _cards(new, **values).filter(either).order_by(*order)
            return list(cards.values_list(*fields)[:n])
        # The order's fields are selected too, so the merged rows can be sorted by them.
        columns = (*fields, *(f for f in order if f not in fields))
        # One read per lesson, each an index range stopping at `n`, merged by the database.
        # The ids go in as values, so the planner knows each lesson's size (as a parameter of
        # a lateral join it guesses, and may walk the whole deck's index instead).
        within = ("lesson_id", *(in_lesson or order))
        parts: list[str] = []
        params: list[Any] = []
        for pk, shut in lessons.items():
            sql, lesson_params = _lesson_read.sql(
                (new, columns, within), lesson_id=pk, left_out=list(shut), **values
            )
            parts.append(f"({sql} LIMIT %s)")
            params += [*lesson_params, n]
        by = ", ".join(quote(name) for name in order)
        if not parts:
            return []
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT * FROM ({' UNION ALL '.join(parts)}) AS merged ORDER BY {by} LIMIT %s",
                [*params, n],
            )
            return [row[: len(fields)] for row in cursor.fetchall()]

    return read


_lessons: revisions.Kept[list[tuple[int, str, str]]] = revisions.Kept(size=1)


def _open_lessons(*, course: str, lesson: str, waiting: set[int], revision: int) -> list[int]:
    """The lessons in scope whose cards may come today (not those waiting), from the lessons
    kept for the content revision."""
    every = _lessons.get(
        "lessons",
        revision,
        lambda: list(Lesson.objects.order_by("pk").values_list("pk", "course__slug", "slug")),
    )
    return [
        pk
        for pk, course_slug, slug in every
        if pk not in waiting and course in ("", course_slug) and lesson in ("", slug)
    ]
