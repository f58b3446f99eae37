"""Background tasks on learning: each takes ids (or nothing), calls a service, and is safe to
run twice. Periodic ones are scheduled in config/schedules.py."""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from accounts.models import User
from accounts.services import expired_tokens_prune, notifications_prune
from accounts.tasks import notification_emails_send
from config import background
from quizzes import digests, fitting, notices
from quizzes.services import idempotency_records_prune

logger = logging.getLogger(__name__)

# Failures worth another try later: the database briefly away.
TRANSIENT = (OperationalError, InterfaceError)
RETRY: dict[str, Any] = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 10,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 5,
}
# Idempotent tasks are acknowledged when done: one whose worker dies is delivered again.
AGAIN_IF_LOST: dict[str, Any] = {"acks_late": True, "reject_on_worker_lost": True}


@shared_task(
    name="quizzes.reminders_sweep", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def reminders_sweep() -> dict[str, int]:
    def emails_owed(user_ids: list[int]) -> None:
        try:
            notification_emails_send.delay(user_ids)
        except Exception:  # the broker went away: the next sweep hands these on again
            logger.warning("Could not queue e-mails for %d learners", len(user_ids))

    return asdict(notices.reminders_sweep(now=timezone.now(), emails_owed=emails_owed))


@shared_task(
    name="quizzes.leech_notify", soft_time_limit=30, time_limit=60, **AGAIN_IF_LOST, **RETRY
)
def leech_notify(card_id: int) -> bool:
    return notices.leech_notify(card_id=card_id)


@shared_task(
    name="quizzes.refit_sweep", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def refit_sweep() -> int:
    def refit(user_id: int) -> None:
        scheduler_refit.delay(user_id)

    return fitting.refit_sweep(refit=refit)


@shared_task(
    name="quizzes.scheduler_refit", soft_time_limit=300, time_limit=360, **AGAIN_IF_LOST, **RETRY
)
def scheduler_refit(user_id: int) -> dict[str, Any] | None:
    outcome = fitting.scheduler_refit(user_id=user_id, now=timezone.now())
    return asdict(outcome) if outcome else None


@shared_task(
    name="quizzes.prune_expired", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def prune_expired() -> dict[str, int]:
    now = timezone.now()
    return {
        "tokens": expired_tokens_prune(now=now),
        "idempotency_records": idempotency_records_prune(now=now),
        "notifications": notifications_prune(now=now),
    }


@shared_task(
    name="quizzes.teacher_digests", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def teacher_digests() -> int:
    def digest(teacher_id: int) -> None:
        teacher_digest.delay(teacher_id)

    return digests.teacher_digests_sweep(digest=digest)


@shared_task(
    name="quizzes.teacher_digest", soft_time_limit=300, time_limit=360, **AGAIN_IF_LOST, **RETRY
)
def teacher_digest(teacher_id: int) -> bool:
    teacher = User.objects.filter(pk=teacher_id, is_active=True).first()
    if teacher is None:
        return False
    now = timezone.now()
    written = digests.teacher_digest(teacher=teacher, now=now) is not None
    background.send(notification_emails_send, [teacher_id])
    return written
