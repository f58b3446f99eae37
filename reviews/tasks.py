"""Background tasks on learning: each takes ids (or nothing), calls a service, and is safe to
run twice. Periodic ones are scheduled in config/schedules.py.

Task names are what beat's stored schedules and queued messages carry, so they keep the
`quizzes.` prefix they were first published under.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from celery import shared_task
from django.utils import timezone

from accounts.export_files import expired_files_prune
from accounts.services import expired_tokens_prune, notifications_prune
from accounts.tasks import notification_emails_send
from config.background import AGAIN_IF_LOST, RETRY
from reviews import fitting, notices
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
    name="quizzes.refit_sweep", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def refit_sweep() -> int:
    def refit(user_id: int) -> None:
        scheduler_refit.delay(user_id)

    def rederive(user_id: int) -> None:
        cards_rederive.delay(user_id)

    return fitting.refit_sweep(refit=refit, rederive=rederive)


@shared_task(
    name="quizzes.scheduler_refit", soft_time_limit=300, time_limit=360, **AGAIN_IF_LOST, **RETRY
)
def scheduler_refit(user_id: int) -> dict[str, Any] | None:
    outcome = fitting.scheduler_refit(user_id=user_id, now=timezone.now())
    if outcome and outcome.kept:  # committed by now; if this send is lost, the sweep sends it
        cards_rederive.delay(user_id)
    return asdict(outcome) if outcome else None


@shared_task(
    name="reviews.cards_rederive", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def cards_rederive(user_id: int) -> int | None:
    return fitting.cards_rederive(user_id=user_id)


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
