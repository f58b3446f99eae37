"""Background tasks on learning: each takes ids (or nothing), calls a service, and is safe to
run twice. Periodic ones are scheduled in config/schedules.py.

Task names are what beat's stored schedules and queued messages carry, so they keep the
`quizzes.` prefix they were first published under.
"""

from __future__ import annotations

import logging
from dataclasses import asdict

from celery import shared_task
from django.utils import timezone

from accounts.export_files import expired_files_prune
from accounts.services import expired_tokens_prune, notifications_prune
from accounts.tasks import notification_emails_send
from config.background import AGAIN_IF_LOST, RETRY
from reviews import notices
from reviews.due_slots import empty_slots_prune
from reviews.idempotency import idempotency_records_prune

logger = logging.getLogger(__name__)


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
    name="quizzes.prune_expired", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def prune_expired() -> dict[str, int]:
    now = timezone.now()
    return {
        "tokens": expired_tokens_prune(now=now),
        "idempotency_records": idempotency_records_prune(now=now),
        "notifications": notifications_prune(now=now),
        "exports": expired_files_prune(now=now),
        "empty_due_slots": empty_slots_prune(),
    }
