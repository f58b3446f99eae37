"""Fitting the scheduler to one learner: FSRS parameters from their own review history, kept
only when they predict that history better than the ones in use."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from accounts.models import User
from engine import fitting
from quizzes.models import Answer


@dataclass(frozen=True)
class FitOutcome:
    reviews: int
    kept: bool
    log_loss_before: float | None
    log_loss_after: float | None


def review_histories(*, user: User) -> list[list[tuple[datetime, int]]]:
    """Each card's reviews in time order, as (when, rating): one query."""
    rows = (
        Answer.objects.filter(user=user, mode=Answer.Mode.REVIEW, rating__isnull=False)
        .order_by("question_id", "created_at", "pk")
        .values_list("question_id", "created_at", "rating")
    )
    return [
        [(when, int(rating or 0)) for _, when, rating in group]
        for _, group in groupby(rows.iterator(), key=lambda row: row[0])
    ]


def scheduler_fit(*, user: User, now: datetime) -> FitOutcome:
    histories = review_histories(user=user)
    result = fitting.fit(histories, current=user.scheduler_parameters)
    if result is None:
        return FitOutcome(fitting.scored_reviews(histories), False, None, None)
    if result.better:
        user.scheduler_parameters = list(result.parameters)
        user.scheduler_fitted_at = now
        user.save(update_fields=["scheduler_parameters", "scheduler_fitted_at"])
    return FitOutcome(
        result.reviews, result.better, result.log_loss_current, result.log_loss_fitted
    )
