"""A learner's numbers: today's work, streak, retention, recall now, the month ahead, the year
behind. Days are the learner's own (time zone and day-start hour); a fixed number of queries,
each bounded by what it shows rather than by the deck or the log: the year and the month come
from the rollups, the month ahead from the due slots, and the chance of recall is one
aggregate in the database over at most `RECALL_SAMPLE` cards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Avg, Count, Q, Sum

from accounts.models import User
from quizzes.selectors import open_to
from reviews import due_slots
from reviews.days import day_start, streak, study_date
from reviews.deck import deck_refresh
from reviews.models import Answer, Card, StudyDay
from reviews.recall import recall_now

FORECAST_DAYS = 30
RETENTION_DAYS = 30
RECALL_SAMPLE = 4096
"""The most reviewed cards the mean chance of recall is taken over: a larger deck's is
estimated from this many drawn at random, within half a percentage point or so (the standard
error of a mean of values between 0 and 1 over 4,096 of them is at most 0.008, and about 0.002
for a deck's usual spread)."""


@dataclass(frozen=True)
class Stats:
    due_today: int
    new_available: int
    reviews_today: int
    streak_days: int
    true_retention: float | None
    average_retrievability: float | None
    forecast: list[dict[str, Any]]
    heatmap: list[dict[str, Any]]


def learner_stats(*, user: User, now: datetime, days: int = 365) -> Stats:
    started = day_start(user=user, now=now)
    today = study_date(user=user, now=now)
    tomorrow = started + timedelta(days=1)
    reviews = Answer.objects.filter(user=user, mode=Answer.Mode.REVIEW)

    done = reviews.filter(created_at__gte=started).aggregate(
        all=Count("pk"), new=Count("pk", filter=Q(card_before__state="new"))
    )
    # The year behind and the month's retention from the log's rollups, a row per study day
    # and course, however many answers the days hold.
    studied = StudyDay.objects.filter(user=user, day__lte=today)
    window = studied.filter(day__gt=today - timedelta(days=RETENTION_DAYS)).aggregate(
        total=Sum("mature", default=0), passed=Sum("passed", default=0)
    )
    per_day = dict(
        studied.filter(day__gt=today - timedelta(days=max(days, 1)), reviews__gt=0)
        .values("day")
        .annotate(n=Sum("reviews"))
        .values_list("day", "n")
        .order_by()
    )
    streak_days = streak(set(per_day), today)
    if streak_days >= days - 1:
        # The run may go on past the heatmap's first day: read the rest of it.
        streak_days = streak(
            set(studied.filter(reviews__gt=0).values_list("day", flat=True).distinct()), today
        )
    # The month ahead from the due slots: a count per quarter hour, however many cards.
    due_by_day = due_slots.due_by_day(
        user=user, before=tomorrow + timedelta(days=FORECAST_DAYS - 1)
    )
    # Exact up to RECALL_SAMPLE reviewed cards; past that, the mean of that many drawn at
    # random: a card's seed is a hash of the learner and the question, unrelated to how the
    # card has gone, so the ones with the lowest seeds are a fair sample.
    recall = (
        Card.objects.filter(user=user, last_review__isnull=False)
        .order_by("seed")[:RECALL_SAMPLE]
        .aggregate(mean=Avg(recall_now(now)))["mean"]
    )
    new_left = max(user.new_cards_per_day - done["new"], 0)
    deck_refresh(user=user, now=now)
    # New cards of live questions the learner may open, forgotten ones included (as the queue
    # serves them), counted only as far as today's limit.
    new_available = Card.objects.filter(
        open_to(user, via="question__"),
        user=user,
        suspended=False,
        state=Card.State.NEW,
        lesson__isnull=False,  # the bank's questions come when practised, never as new
        question__archived_at__isnull=True,
        question__lesson__archived_at__isnull=True,
    )[:new_left].count()

    overdue = sum(n for day, n in due_by_day.items() if day < today)
    due_today = due_by_day.get(today, 0) + overdue
    forecast = [
        {"date": today.isoformat(), "due": due_today},
        *(
            {"date": (day := today + timedelta(days=i)).isoformat(), "due": due_by_day.get(day, 0)}
            for i in range(1, FORECAST_DAYS)
        ),
    ]
    return Stats(
        due_today=due_today,
        new_available=new_available,
        reviews_today=done["all"],
        streak_days=streak_days,
        true_retention=window["passed"] / window["total"] if window["total"] else None,
        average_retrievability=recall,
        forecast=forecast,
        heatmap=[
            {
                "date": (today - timedelta(days=i)).isoformat(),
                "reviews": per_day.get(today - timedelta(days=i), 0),
            }
            for i in range(days - 1, -1, -1)
        ],
    )


def cards_by_state(*, user: User) -> dict[str, int]:
    """The learner's cards by where they stand, in one query: new ones waiting (of questions
    they may open), learning, review and relearning ones in the queue, and suspended ones.
    Counts new cards made ahead by `deck_refresh`, so call it (or `learner_stats`) first."""
    waiting = (
        Q(state=Card.State.NEW, lesson__isnull=False, question__archived_at__isnull=True)
        & Q(question__lesson__archived_at__isnull=True)
        & open_to(user, via="question__")
    )
    rows = (
        Card.objects.filter(user=user)
        .values_list("state", "suspended")
        .annotate(cards=Count("pk"), waiting=Count("pk", filter=waiting))
        .order_by()
    )
    counts = dict.fromkeys(("new", "learning", "review", "relearning", "suspended"), 0)
    for state, suspended, cards, waiting_new in rows:
        if suspended:
            counts["suspended"] += cards
        elif state == Card.State.NEW:
            counts["new"] += waiting_new
        else:
            counts[state] += cards
    return counts


def answer_pace_ms(*, user: User, last: int = 200) -> float | None:
    """The learner's average time to answer over their last `last` timed answers."""
    average: float | None = (
        Answer.objects.filter(user=user, duration_ms__isnull=False)
        .order_by("-created_at")[:last]
        .aggregate(ms=Avg("duration_ms"))["ms"]
    )
    return average
