"""Licence codes for schools and teams: made in batches by staff, each redeemed once for days
of Pro."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts import entitlements
from accounts.models import (
    LICENCE_CODE_ALPHABET,
    LICENCE_CODE_LENGTH,
    Grant,
    LicenceBatch,
    LicenceCode,
    User,
)

MAX_BATCH = 5_000
"""Codes per batch: a large school's year, and a bound on one admin request's work."""


def new_code() -> str:
    """16 characters from 31: about 7 * 10^23 codes, from a CSPRNG, so guessing one in the
    time the redeem throttle allows is hopeless."""
    return "".join(secrets.choice(LICENCE_CODE_ALPHABET) for _ in range(LICENCE_CODE_LENGTH))


def normalized(raw: str) -> str:
    """What the learner typed, as stored: capitals, without spaces or dashes."""
    return "".join(raw.split()).replace("-", "").upper()


def well_formed(code: str) -> bool:
    return len(code) == LICENCE_CODE_LENGTH and all(c in LICENCE_CODE_ALPHABET for c in code)


def batch_create(
    *, name: str, days: int, expires_at: datetime, count: int, created_by: User | None
) -> LicenceBatch:
    """A batch and its `count` fresh codes, all or nothing."""
    if not 1 <= count <= MAX_BATCH:
        raise ValueError(f"count must be between 1 and {MAX_BATCH}")
    with transaction.atomic():
        batch = LicenceBatch(name=name, days=days, expires_at=expires_at, created_by=created_by)
        batch.full_clean()
        batch.save()
        made = 0
        while made < count:  # a clash with an existing code is drawn again
            codes = {new_code() for _ in range(count - made)}
            taken = set(LicenceCode.objects.filter(code__in=codes).values_list("code", flat=True))
            fresh = [LicenceCode(batch=batch, code=c) for c in sorted(codes - taken)]
            LicenceCode.objects.bulk_create(fresh)
            made += len(fresh)
    return batch


class LicenceRefused(Exception):
    """A code that gives nothing, and why, in words for the learner."""

    def __init__(self, *, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Redeemed:
    days: int
    pro_until: datetime
    batch: str


def redeem(*, user: User, raw_code: str, now: datetime | None = None) -> Redeemed:
    """Redeems the code for `user`: its days of Pro are added after any they already have from
    licences. A code works once, for one learner, before its batch expires."""
    now = now or timezone.now()
    code = normalized(raw_code)
    unknown = LicenceRefused(
        code="unknown_code", message="This is not a licence code; check it and try again."
    )
    if not well_formed(code):
        raise unknown
    with transaction.atomic():
        licence = (
            LicenceCode.objects.select_for_update(of=("self",))
            .select_related("batch")
            .filter(code=code)
            .first()
        )
        if licence is None:
            raise unknown
        if licence.redeemed_at is not None:
            raise LicenceRefused(
                code="already_redeemed",
                message="This code has been used already; each code works once.",
            )
        if licence.batch.expires_at <= now:
            raise LicenceRefused(
                code="expired",
                message="This code expired on "
                f"{licence.batch.expires_at:%d %B %Y}; ask whoever gave it to you for a new one.",
            )
        grant = entitlements.grant_stack(
            user_id=user.pk,
            source=Grant.Source.LICENCE,
            reference=f"licence:{licence.pk}",
            days=licence.batch.days,
            note=licence.batch.name,
            now=now,
        )
        licence.redeemed_at = now
        licence.redeemed_by = user
        licence.save(update_fields=["redeemed_at", "redeemed_by"])
    user.refresh_from_db(fields=["pro_until"])
    return Redeemed(
        days=licence.batch.days, pro_until=grant.ends_at or now, batch=licence.batch.name
    )
