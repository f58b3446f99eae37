"""Pro: who has it and until when. The one rule, and the only writer of grants.

A user has Pro while one of their open grants (`accounts.models.Grant`) has not reached its
end. Each source (a subscription, a licence code, a classroom seat, staff) adds, extends and
ends its own grants here; after every change the user's `pro_until` is worked out again in the
same transaction, so a request reads the plan from the user row it already holds, with no
further query (the queue and the answer path ask on every request).

Other apps reach grants only through these functions: `accounts` imports none of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Grant, User

FOREVER = datetime(9999, 12, 31, tzinfo=UTC)
"""`pro_until` for Pro without an end (a classroom seat, staff's grant): while it lasts."""

Source = Grant.Source


def has_pro(user: Any, *, at: datetime | None = None) -> bool:
    """Does this user have Pro now (or at `at`)? Visitors do not. No query."""
    if not getattr(user, "is_authenticated", False):
        return False
    until = user.pro_until
    return until is not None and until > (at or timezone.now())


def pro_until(user: Any, *, at: datetime | None = None) -> datetime | None:
    """When the user's Pro ends, or None when they have none now. `FOREVER` means no end."""
    return user.pro_until if has_pro(user, at=at) else None


def open_grants(*, user: User, at: datetime | None = None) -> list[Grant]:
    """The grants that give the user Pro now, the longest first."""
    now = at or timezone.now()
    grants = Grant.objects.filter(
        Q(ends_at__isnull=True) | Q(ends_at__gt=now),
        user=user,
        ended_at__isnull=True,
        starts_at__lte=now,
    )
    return sorted(grants, key=lambda g: (g.ends_at or FOREVER, g.pk), reverse=True)


def _lock(user_ids: Iterable[int]) -> None:
    """Takes the users' rows in id order, so concurrent changes to one user's grants queue up
    and two changes to several users cannot deadlock."""
    list(User.objects.select_for_update().filter(pk__in=sorted(set(user_ids))).values_list("pk"))


def _refresh(user_ids: Iterable[int]) -> None:
    """Works out `pro_until` again for these users (inside the caller's transaction): the
    latest end among their grants, where a grant ended early ends when it was ended. So a
    user whose grants have all ended keeps when their Pro stopped, and one who never had a
    grant keeps None."""
    ids = sorted(set(user_ids))
    ends: dict[int, datetime | None] = dict.fromkeys(ids)
    for user_id, ends_at, ended_at in Grant.objects.filter(user_id__in=ids).values_list(
        "user_id", "ends_at", "ended_at"
    ):
        end = ends_at or FOREVER
        if ended_at is not None:
            end = min(end, ended_at)
        current = ends[user_id]
        if current is None or end > current:
            ends[user_id] = end
    for user_id, until in ends.items():
        User.objects.filter(pk=user_id).update(pro_until=until)


def grant_add(
    *,
    user_id: int,
    source: str,
    reference: str,
    ends_at: datetime | None = None,
    note: str = "",
    now: datetime | None = None,
) -> Grant:
    """Opens the grant, or moves the end of the open one with this source and reference
    (so a source that says the same thing twice changes nothing)."""
    now = now or timezone.now()
    with transaction.atomic():
        _lock([user_id])
        grant = Grant.objects.filter(
            user_id=user_id, source=source, reference=reference, ended_at__isnull=True
        ).first()
        if grant is None:
            grant = Grant.objects.create(
                user_id=user_id,
                source=source,
                reference=reference,
                starts_at=now,
                ends_at=ends_at,
                note=note,
            )
        elif grant.ends_at != ends_at:
            grant.ends_at = ends_at
            grant.save(update_fields=["ends_at"])
        _refresh([user_id])
    return grant


def grant_end(*, user_id: int, source: str, reference: str, now: datetime | None = None) -> bool:
    """Ends the open grant with this source and reference; False when there was none."""
    now = now or timezone.now()
    with transaction.atomic():
        _lock([user_id])
        ended = Grant.objects.filter(
            user_id=user_id, source=source, reference=reference, ended_at__isnull=True
        ).update(ended_at=now)
        _refresh([user_id])
    return bool(ended)


def grants_sync(
    *, source: str, reference: str, user_ids: Collection[int], now: datetime | None = None
) -> tuple[set[int], set[int]]:
    """Makes exactly `user_ids` hold an open, unending grant with this source and reference
    (a classroom's seats): opens the missing ones and ends the rest. Returns the users who
    gained and who lost a grant."""
    now = now or timezone.now()
    wanted = set(user_ids)
    with transaction.atomic():
        holders = set(
            Grant.objects.filter(
                source=source, reference=reference, ended_at__isnull=True
            ).values_list("user_id", flat=True)
        )
        gained, lost = wanted - holders, holders - wanted
        if not gained and not lost:
            return gained, lost
        _lock(gained | lost)
        Grant.objects.filter(
            source=source, reference=reference, ended_at__isnull=True, user_id__in=lost
        ).update(ended_at=now)
        Grant.objects.bulk_create(
            [
                Grant(user_id=u, source=source, reference=reference, starts_at=now)
                for u in sorted(gained)
            ]
        )
        _refresh(gained | lost)
    return gained, lost


def grant_stack(
    *,
    user_id: int,
    source: str,
    reference: str,
    days: int,
    note: str = "",
    now: datetime | None = None,
) -> Grant:
    """Opens a grant of `days` that starts where the user's open grants of this source end (a
    second licence code adds its days after the first's). The end is read under the user's
    lock, so two codes redeemed at once both count in full."""
    now = now or timezone.now()
    with transaction.atomic():
        _lock([user_id])
        ends = Grant.objects.filter(
            user_id=user_id, source=source, ended_at__isnull=True, ends_at__gt=now
        ).values_list("ends_at", flat=True)
        start = max([now, *[e for e in ends if e is not None]])
        return grant_add(
            user_id=user_id,
            source=source,
            reference=reference,
            ends_at=start + timedelta(days=days),
            note=note,
            now=now,
        )
