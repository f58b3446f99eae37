"""The daily review queue: due cards first, then new questions, within the learner's limits.

Days are the learner's own: they start at `day_starts_at_hour` in the learner's time zone.
Cards due within the learn-ahead window count as due. Suspended cards stay out, and so do the
siblings of a card answered today: other cards and new questions of the same lesson wait until
the next day, and so does a card the learner buried. A learner without Pro gets no Pro
question. Overdue cards come lowest chance of recall first, then those due within the
learn-ahead window, soonest first. New questions come in course order from the learner's new
cards (made ahead, see `reviews.deck`). A fixed number of queries, each an index range read of
a bounded length, however large the deck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Prefetch, Q, QuerySet, prefetch_related_objects

from accounts.models import User
from engine.scheduling import retrievability
from quizzes.models import Choice, Question
from quizzes.selectors import open_to
from reviews.days import day_start
from reviews.deck import deck_refresh
from reviews.models import Answer, Card

LEARN_AHEAD = timedelta(minutes=20)


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
    # Today's reviews per lesson: the day's counts, and the lessons whose siblings wait.
    today = list(
        Answer.objects.filter(user=user, mode=Answer.Mode.REVIEW, created_at__gte=started)
        .values("question__lesson_id")
        .annotate(reviews=Count("pk"), new=Count("pk", filter=Q(card_before__state="new")))
        .order_by()
    )
    reviews_today = sum(row["reviews"] for row in today)
    new_today = sum(row["new"] for row in today)
    reviews_left = max(user.reviews_per_day - reviews_today, 0)
    new_left = max(user.new_cards_per_day - new_today, 0)
    lessons_today = [row["question__lesson_id"] for row in today]

    # Pro questions stay out for a learner without Pro (one who had it keeps their cards).
    open_to_learner = open_to(user, via="question__")
    due: QuerySet[Card] = Card.objects.filter(
        open_to_learner, user=user, suspended=False, due__lte=now + LEARN_AHEAD
    ).exclude(state=Card.State.NEW)
    # A buried card waits for the day after it was buried.
    due = due.exclude(buried_until__gt=now)
    if lessons_today:
        due = due.exclude(Q(question__lesson_id__in=lessons_today) & ~Q(last_review__gte=started))
    due = _scoped(due, course=course, lesson=lesson)
    chosen, ranked = _most_urgent(
        due, user=user, now=now, count=min(limit, reviews_left), candidates=reviews_left
    )
    # Counted only as far as today's limit: what can be done today, at the cost of a page
    # (no more than was ranked, unless the learner's limit is higher than that).
    due_count = (
        ranked if reviews_left <= CANDIDATES else due.order_by("due", "pk")[:reviews_left].count()
    )
    rank = {pk: i for i, pk in enumerate(chosen)}
    cards = sorted(
        Card.objects.filter(pk__in=chosen).select_related(
            "question", "question__lesson__course", "question__section"
        ),
        key=lambda card: rank[card.pk],
    )

    fresh = _scoped(
        Card.objects.filter(
            open_to_learner,
            user=user,
            suspended=False,
            state=Card.State.NEW,
            question__archived_at__isnull=True,
            question__lesson__archived_at__isnull=True,
        )
        .exclude(question__lesson_id__in=lessons_today)
        .exclude(buried_until__gt=now),
        course=course,
        lesson=lesson,
    )
    # In the index's order, so both reads below walk it and stop early.
    fresh = fresh.order_by("lesson_number", "position", "question_id")
    room = min(max(limit - len(cards), 0), new_left)
    new_questions = (
        [
            card.question
            for card in fresh.select_related(
                "question", "question__lesson__course", "question__section"
            )[:room]
        ]
        if room
        else []
    )
    # One query for the choices of every question served.
    prefetch_related_objects(
        [card.question for card in cards] + new_questions,
        Prefetch("choices", queryset=Choice.objects.order_by("position")),
    )
    return Queue(
        due_count=due_count,
        new_count=fresh[:new_left].count(),
        cards=cards,
        new_questions=new_questions,
        reviews_today=reviews_today,
        new_today=new_today,
    )


CANDIDATES = 200
"""How many of the earliest due cards are ranked by their chance of recall (at least the
largest page the queue serves)."""


def _most_urgent(
    due: QuerySet[Card], *, user: User, now: datetime, count: int, candidates: int
) -> tuple[list[int], int]:
    """The ids of the `count` cards to review first, out of the earliest due (at most
    `candidates` of them), and how many were ranked.

    Overdue cards come lowest chance of recall first (the most overdue for their stability),
    then the ones due within the learn-ahead window, soonest first. The chance of recall
    depends on the time now, so no index holds that order; ranking the `CANDIDATES` earliest
    due keeps the read a bounded index range, and a card left out of them is among the next
    ones as soon as those are reviewed.
    """
    if candidates <= 0:
        return [], 0
    rows = list(
        due.order_by("due", "pk").values_list("pk", "due", "stability", "last_review")[
            : min(CANDIDATES, candidates)
        ]
    )
    stability = [math.nan if s is None else s for _, _, s, _ in rows]
    elapsed = [math.nan if last is None else (now - last).days for _, _, _, last in rows]
    chance = retrievability(stability, elapsed, user.scheduler_parameters or None).tolist()
    # Rows come soonest due first; the sort is stable, so ties keep that order.
    order = sorted(
        range(len(rows)),
        key=lambda i: (0, chance[i]) if rows[i][1] <= now else (1, 0.0),
    )
    return [rows[i][0] for i in order[:count]], len(rows)


def _scoped(queryset: QuerySet[Card], *, course: str, lesson: str) -> QuerySet[Card]:
    if course:
        queryset = queryset.filter(question__lesson__course__slug=course)
    if lesson:
        queryset = queryset.filter(question__lesson__slug=lesson)
    return queryset
