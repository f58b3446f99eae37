"""The month ahead from the due slots: each learner's scheduled cards counted by the quarter
hour they fall due in (`DueSlot`), kept by triggers on the card table (migration 0007).

Reading the forecast sums at most a few thousand slots, whatever the deck holds. The counts
are derived: `recount` makes them again from the cards (by `manage.py rollups_rebuild`), and
`empty_slots_prune` drops the slots whose cards have all moved on.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.db import connection, transaction
from django.db.models import Count, F, Q, QuerySet, Sum
from django.db.models.functions import TruncDate, TruncMinute

from accounts.models import User
from reviews.models import Card, DueSlot


def _local_day(field: str, user: User) -> TruncDate:
    """The learner's study day of a timestamp: their zone, shifted by the day-start hour."""
    shifted = F(field) - timedelta(hours=user.day_starts_at_hour)
    return TruncDate(shifted, tzinfo=ZoneInfo(user.timezone))


def due_by_day(*, user: User, before: datetime) -> dict[date, int]:
    """The learner's scheduled cards due before `before`, by their study day of it.

    Exact, not rounded: every time zone's offset is a whole number of quarter hours and the
    day starts on the hour, so a study day begins on a slot's edge and a slot lies in one day.
    `before` must be such a day's start."""
    return dict(
        DueSlot.objects.filter(user=user, slot__lt=before, cards__gt=0)
        .annotate(day=_local_day("slot", user))
        .values("day")
        .annotate(n=Sum("cards"))
        .values_list("day", "n")
        .order_by()
    )


def scheduled_cards() -> QuerySet[Card]:
    """The cards the slots count: neither new nor suspended (those of the queue's due scan)."""
    return Card.objects.filter(suspended=False).exclude(state=Card.State.NEW)


def counted_from_cards(*, user_ids: Sequence[int]) -> dict[tuple[int, datetime], int]:
    """The slots' counts as these learners' cards give them now: (learner, slot) to cards."""
    counts: dict[tuple[int, datetime], int] = {}
    for user_id, minute, n in (
        scheduled_cards()
        .filter(user_id__in=user_ids)
        .annotate(minute=TruncMinute("due", tzinfo=UTC))
        .values("user_id", "minute")
        .annotate(n=Count("pk"))
        .values_list("user_id", "minute", "n")
        .order_by()
    ):
        slot = minute.replace(minute=minute.minute // 15 * 15)
        counts[(user_id, slot)] = counts.get((user_id, slot), 0) + n
    return counts


def recount(*, user_ids: Sequence[int]) -> int:
    """Counts these learners' slots again from their cards: returns the slots written.

    On PostgreSQL it takes each learner's lock that the triggers take, so a card written
    meanwhile either commits first (and is read) or waits and then counts itself in."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended('reviews_dueslot ' || u, 0))"
                    " FROM (SELECT DISTINCT u FROM unnest(%s::bigint[]) AS u ORDER BY u) AS t",
                    [list(user_ids)],
                )
        DueSlot.objects.filter(user_id__in=user_ids).delete()
        rows = [
            DueSlot(user_id=user_id, slot=slot, cards=n)
            for (user_id, slot), n in counted_from_cards(user_ids=user_ids).items()
        ]
        DueSlot.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


def recount_everyone(*, user_ids: Sequence[int] | None = None, batch_size: int = 500) -> int:
    """Counts the slots again for every learner with cards or slots (or those of
    `user_ids`), `batch_size` learners per transaction; returns how many learners."""
    if user_ids is None:
        learners = User.objects.filter(
            Q(pk__in=Card.objects.values("user_id")) | Q(pk__in=DueSlot.objects.values("user_id"))
        )
    else:
        learners = User.objects.filter(pk__in=user_ids)
    learners = learners.order_by("pk")
    done, after = 0, 0
    while batch := list(learners.filter(pk__gt=after).values_list("pk", flat=True)[:batch_size]):
        recount(user_ids=batch)
        done += len(batch)
        after = batch[-1]
    return done


def empty_slots_prune() -> int:
    """Drops the slots left at 0 (their cards reviewed or moved): returns how many. A slot
    filled again meanwhile is kept; a later card makes its row anew."""
    deleted, _ = DueSlot.objects.filter(cards=0).delete()
    return deleted
