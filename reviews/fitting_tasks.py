"""The scheduler's fitting tasks: the nightly refit sweep, one learner's refit, and the
re-derivation of their cards after a kept fit. Kept out of `reviews.tasks` (which the card
code imports) since re-deriving steps cards; registered by the app's ready(). Their names are
what beat's stored schedules and queued messages carry."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import shared_task
from django.utils import timezone

from config.background import AGAIN_IF_LOST, RETRY
from reviews import fitting


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
    if outcome and outcome.changed:  # committed by now; if this send is lost, the sweep sends it
        cards_rederive.delay(user_id)
    return asdict(outcome) if outcome else None


@shared_task(
    name="reviews.cards_rederive", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def cards_rederive(user_id: int) -> int | None:
    return fitting.cards_rederive(user_id=user_id)
