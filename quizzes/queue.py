"""The daily review queue: due cards first, then new questions, within the learner's limits.

Days are the learner's own: they start at `day_starts_at_hour` in the learner's time zone.
Cards due within the learn-ahead window count as due. Suspended cards stay out, and so do the
siblings of a card answered today: other cards and new questions of the same lesson wait until
the next day. A fixed number of queries, however large the deck.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from accounts.models import User
from quizzes.models import Answer, Card, Question

LEARN_AHEAD = timedelta(minutes=20)


def day_start(*, user: User, now: datetime) -> datetime:
    """When the learner's current study day began, as an aware datetime."""
    local = now.astimezone(ZoneInfo(user.timezone))
    start = local.replace(hour=user.day_starts_at_hour, minute=0, second=0, microsecond=0)
    if local < start:
        start -= timedelta(days=1)
    return start


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
    started = day_start(user=user, now=now)
    today = Answer.objects.filter(user=user, mode=Answer.Mode.REVIEW, created_at__gte=started)
    counts = today.aggregate(
        reviews=Count("pk"), new=Count("pk", filter=Q(card_before__state="new"))
    )
    reviews_left = max(user.reviews_per_day - counts["reviews"], 0)
    new_left = max(user.new_cards_per_day - counts["new"], 0)
    lessons_today = today.values("question__lesson_id")

    due = _scoped(
        Card.objects.filter(user=user, suspended=False, due__lte=now + LEARN_AHEAD)
        .exclude(state=Card.State.NEW)
        .exclude(Q(question__lesson_id__in=lessons_today) & ~Q(last_review__gte=started)),
        course=course,
        lesson=lesson,
        prefix="question__",
    )
    # Counted only as far as today's limit: what can be done today, at the cost of a page.
    due_count = due[:reviews_left].count()
    cards = list(
        due.select_related("question", "question__lesson")
        .prefetch_related("question__choices")
        .order_by("due", "pk")[: min(limit, reviews_left)]
    )

    fresh = _scoped(
        Question.objects.live()
        .filter(lesson__archived_at__isnull=True)
        # Never answered, or forgotten (back to new) and not suspended.
        .exclude(
            Exists(
                Card.objects.filter(user=user, question=OuterRef("pk")).filter(
                    ~Q(state=Card.State.NEW) | Q(suspended=True)
                )
            )
        )
        .exclude(lesson_id__in=lessons_today),
        course=course,
        lesson=lesson,
        prefix="",
    )
    room = min(max(limit - len(cards), 0), new_left)
    new_questions = (
        list(
            fresh.select_related("lesson")
            .prefetch_related("choices")
            .order_by("lesson__number", "position", "pk")[:room]
        )
        if room
        else []
    )
    return Queue(
        due_count=due_count,
        new_count=fresh[:new_left].count(),
        cards=cards,
        new_questions=new_questions,
        reviews_today=counts["reviews"],
        new_today=counts["new"],
    )


def _scoped(queryset: QuerySet[Any], *, course: str, lesson: str, prefix: str) -> QuerySet[Any]:
    if course:
        queryset = queryset.filter(**{f"{prefix}lesson__course__slug": course})
    if lesson:
        queryset = queryset.filter(**{f"{prefix}lesson__slug": lesson})
    return queryset
