"""Fitting the scheduler to one learner: FSRS parameters from their own review history, kept
only when they predict that history better than the ones in use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q

from accounts.models import User
from engine import fitting
from reviews.models import Answer


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
    user.scheduler_checked_at = now
    if result.better:
        user.scheduler_parameters = list(result.parameters)
        user.scheduler_fitted_at = now
        user.save(
            update_fields=["scheduler_parameters", "scheduler_fitted_at", "scheduler_checked_at"]
        )
    else:
        user.save(update_fields=["scheduler_checked_at"])
    return FitOutcome(
        result.reviews, result.better, result.log_loss_current, result.log_loss_fitted
    )


def _scored_reviews() -> Q:
    return Q(mode=Answer.Mode.REVIEW, rating__isnull=False)


def _since_last_fit() -> Q:
    return Q(user__scheduler_checked_at__isnull=True) | Q(
        created_at__gt=F("user__scheduler_checked_at")
    )


def refit_sweep(*, refit: Callable[[int], None], batch_size: int = 1_000) -> int:
    """Hands `refit` each learner with enough reviews, and enough new ones since the last
    fit; returns how many. Two queries per batch of learners, one of them the aggregate."""
    handed = 0
    after = 0
    while True:
        ids = list(
            User.objects.filter(pk__gt=after, is_active=True)
            .order_by("pk")
            .values_list("pk", flat=True)[:batch_size]
        )
        if not ids:
            return handed
        after = ids[-1]
        ready = (
            Answer.objects.filter(_scored_reviews(), user_id__in=ids)
            .values("user_id")
            .annotate(total=Count("pk"), new=Count("pk", filter=_since_last_fit()))
            .filter(total__gte=fitting.MIN_REVIEWS, new__gte=settings.REFIT_NEW_REVIEWS)
            .order_by("user_id")
            .values_list("user_id", flat=True)
        )
        for user_id in ready:
            refit(user_id)
            handed += 1


def scheduler_refit(*, user_id: int, now: datetime) -> FitOutcome | None:
    """Fits the learner's scheduler if enough reviews came since the last fit, else None.

    The learner's row is held while fitting, and a refit that finds it held leaves it to the
    one holding it: a refit sent twice fits once.
    """
    with transaction.atomic():
        user = (
            User.objects.select_for_update(skip_locked=True)
            .filter(pk=user_id, is_active=True)
            .first()
        )
        if user is None:  # gone, or being fitted right now
            return None
        new = Answer.objects.filter(_scored_reviews(), _since_last_fit(), user=user).count()
        if new < settings.REFIT_NEW_REVIEWS:
            return None
        return scheduler_fit(user=user, now=now)
