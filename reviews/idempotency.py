"""Requests that record learning count once: a repeat gets the first response back.

A request names itself with an `Idempotency-Key` header (or a `client_id`). Its first response
is stored in the same transaction as what it wrote, so a repeat finds either both or neither.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import User
from config.batches import delete_in_batches
from config.locks import transaction_lock
from reviews import errors
from reviews.models import IdempotencyRecord


@dataclass(frozen=True)
class Replayable:
    """A response that a repeat of the same request gets back unchanged."""

    status_code: int
    body: dict[str, Any]
    replayed: bool = False


def request_fingerprint(*, method: str, path: str, body: Any) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


def idempotent(
    *, user: User, key: str | None, fingerprint: str, action: Callable[[], Replayable]
) -> Replayable:
    """Run `action` in one transaction, once per (user, key): a repeat gets the first response.

    The record is written in the action's transaction. While the first request holds the key,
    a repeat is refused with 409; the same key with another body is refused with 422. When a
    concurrent request inserted the same new row first (a learner's first card for a question),
    the whole action is tried once more and then finds that row.
    """
    for attempt in (1, 2):
        try:
            return _once(user=user, key=key, fingerprint=fingerprint, action=action)
        except IntegrityError:
            if attempt == 2:
                raise errors.idempotency_in_progress() from None
    raise AssertionError("unreachable")


def _once(
    *, user: User, key: str | None, fingerprint: str, action: Callable[[], Replayable]
) -> Replayable:
    with transaction.atomic():
        if key is None:
            return action()
        if not transaction_lock(f"{user.pk}:{key}", wait=False):
            raise errors.idempotency_in_progress()
        first = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if first is not None:
            if first.fingerprint != fingerprint:
                raise errors.idempotency_mismatch()
            return Replayable(first.status_code, first.body, replayed=True)
        result = action()
        IdempotencyRecord.objects.create(
            user=user,
            key=key,
            fingerprint=fingerprint,
            status_code=result.status_code,
            body=result.body,
        )
        return result


def idempotency_records_prune(*, now: datetime, batch_size: int = 5_000) -> int:
    """Deletes records past `IDEMPOTENCY_TTL`, a bounded batch at a time; returns how many."""
    cutoff = now - timedelta(seconds=settings.IDEMPOTENCY_TTL)
    return delete_in_batches(
        IdempotencyRecord.objects.filter(created_at__lt=cutoff).order_by("pk"),
        batch_size=batch_size,
    )
