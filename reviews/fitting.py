"""Fitting the scheduler to one learner: FSRS parameters from their own review history, kept
only when they predict the learner's later reviews better than fsrs's defaults
(`engine.fitting.fit`), the defaults back when an earlier fit no longer does; then each of
their cards re-derived from its history with the parameters in use, so the schedule and the
predictions agree. The same check sets the answer time under which the learner's right
answers count as Easy, where their history has earned one, and how far above their desired
retention the reviews that can be placed are aimed (`engine.fitting.retention_raise`).

The nightly sweep hands on a learner once they have enough reviews a fit can use (a whole day
or more after the card's previous one), and enough of them since their last check, whatever
that check found; and hands on re-derivation owed (a kept fit whose cards were not re-derived
yet, say the worker stopped between the two).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import groupby

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max, Q, QuerySet, Window
from django.db.models.functions import Lag

from accounts.models import User
from engine import fitting
from reviews import cards
from reviews.models import Answer, Card

REDERIVE_BATCH = 200
"""Cards re-derived in one transaction: their rows are locked while it runs."""


@dataclass(frozen=True)
class FitOutcome:
    reviews: int
    kept: bool
    log_loss_before: float | None  # the defaults', on the reviews the fits were judged on
    log_loss_after: float | None  # the fits'
    easy_answer_ms: int | None = None
    back_to_defaults: bool = False  # an earlier fit gave way to the defaults

    @property
    def changed(self) -> bool:
        """The parameters in use changed: the learner's cards are owed a re-derivation."""
        return self.kept or self.back_to_defaults


def review_histories(*, user: User) -> list[list[tuple[datetime, int]]]:
    """Each card's reviews in time order, as (when, rating): one query."""
    return _untimed(timed_histories(user=user))


def _untimed(
    timed: list[list[tuple[datetime, int, int | None]]],
) -> list[list[tuple[datetime, int]]]:
    return [[(when, rating) for when, rating, _ in card] for card in timed]


def timed_histories(*, user: User) -> list[list[tuple[datetime, int, int | None]]]:
    """Each card's reviews in time order, as (when, rating, how long a right answer the machine
    graded took in milliseconds, else None): one query."""
    rows = (
        Answer.objects.filter(user=user, mode=Answer.Mode.REVIEW, rating__isnull=False)
        .order_by("question_id", "created_at", "pk")
        .values_list("question_id", "created_at", "rating", "status", "self_rating", "duration_ms")
    )
    return [
        [
            (
                when,
                int(rating or 0),
                took if status == "correct" and not self_rating else None,
            )
            for _, when, rating, status, self_rating, took in group
        ]
        for _, group in groupby(rows.iterator(), key=lambda row: row[0])
    ]


def scheduler_fit(*, user: User, now: datetime) -> FitOutcome:
    """Fits the learner's scheduler and records the check, whatever it found; a kept fit's
    parameters replace the ones in use, or the defaults do an earlier fit's when the fits now
    predict worse than them. Call with the learner's row locked."""
    timed = timed_histories(user=user)
    histories = _untimed(timed)
    result = fitting.fit(histories, current=user.scheduler_parameters)
    kept = result is not None and result.kept
    fields = ["scheduler_checked_at", "easy_answer_ms", "retention_raise"]
    user.scheduler_checked_at = now
    back = result is not None and result.back_to_defaults
    if result is not None and (kept or back):
        user.scheduler_parameters = None if back else list(result.parameters)
        user.scheduler_fitted_at = now
        fields += ["scheduler_parameters", "scheduler_fitted_at"]
    user.easy_answer_ms = fitting.earned_easy_ms(timed, user.scheduler_parameters)
    user.retention_raise = fitting.retention_raise(
        histories, user.scheduler_parameters, user.desired_retention
    )
    user.save(update_fields=fields)
    if result is None:
        return FitOutcome(fitting.scored_reviews(histories), False, None, None, user.easy_answer_ms)
    return FitOutcome(
        result.reviews,
        kept,
        result.log_loss_defaults,
        result.log_loss_fitted,
        user.easy_answer_ms,
        back,
    )


def usable_reviews(*, user_ids: list[int]) -> QuerySet[Answer]:
    """The reviews of these learners a fit can use: rated, a whole day or more after the
    card's previous review (the first review of a card, and the same day's, predict nothing)."""
    previous = Window(
        Lag("created_at"),
        partition_by=[F("user_id"), F("question_id")],
        order_by=[F("created_at").asc(), F("pk").asc()],
    )
    return (
        Answer.objects.filter(user_id__in=user_ids, mode=Answer.Mode.REVIEW, rating__isnull=False)
        .annotate(previous=previous)
        .filter(previous__isnull=False, created_at__gte=F("previous") + timedelta(days=1))
        .order_by()
    )


def _ready(user_ids: list[int]) -> list[int]:
    """Of these learners, the ones with enough usable reviews, and enough since their last
    check: one query."""
    inner = usable_reviews(user_ids=user_ids).values("user_id", "created_at")
    sql, params = inner.query.sql_with_params()
    user_table = connection.ops.quote_name(User._meta.db_table)
    query = f"""
        SELECT usable.user_id FROM ({sql}) usable
        JOIN {user_table} u ON u.id = usable.user_id
        GROUP BY usable.user_id, u.scheduler_checked_at
        HAVING COUNT(*) >= %s AND SUM(CASE WHEN u.scheduler_checked_at IS NULL
                                           OR usable.created_at > u.scheduler_checked_at
                                      THEN 1 ELSE 0 END) >= %s
        ORDER BY usable.user_id
    """
    with connection.cursor() as cursor:
        cursor.execute(query, [*params, fitting.MIN_REVIEWS, settings.REFIT_NEW_REVIEWS])
        return [row[0] for row in cursor.fetchall()]


def refit_sweep(
    *,
    refit: Callable[[int], None],
    rederive: Callable[[int], None] = lambda user_id: None,
    batch_size: int = 1_000,
) -> int:
    """Hands `refit` each learner with enough usable reviews, and enough new ones since the
    last check; hands `rederive` each learner whose cards a kept fit has not re-derived yet;
    returns how many were handed to `refit`. Three queries per batch of learners."""
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
        for user_id in _ready(ids):
            refit(user_id)
            handed += 1
        owed = User.objects.filter(pk__in=ids, scheduler_fitted_at__isnull=False).filter(
            Q(scheduler_rederived_at__isnull=True)
            | Q(scheduler_rederived_at__lt=F("scheduler_fitted_at"))
        )
        for user_id in owed.order_by("pk").values_list("pk", flat=True):
            rederive(user_id)


def scheduler_refit(*, user_id: int, now: datetime) -> FitOutcome | None:
    """Fits the learner's scheduler if enough usable reviews came since the last check, else
    None.

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
        if user_id not in _ready([user_id]):
            return None
        return scheduler_fit(user=user, now=now)


def cards_rederive(*, user_id: int, batch_size: int = REDERIVE_BATCH) -> int | None:
    """Re-derives each of the learner's cards from its review history (since a reset) with the
    parameters in use: the state, and every review's card before and after, as if the
    parameters had been these all along (the ratings stay as given). In batches of cards, each
    locked while it is stepped; a card answered meanwhile waits for its batch, or its batch for
    it. Idempotent: a card already derived with these parameters comes out the same.

    An answer whose request read the parameters before the fit landed, and stepped its card
    after the card's batch, stepped it with the old ones: once every batch is done, the cards
    answered since the re-derivation began are derived again.

    Returns how many cards were re-derived, or None when it stopped because the parameters
    changed again (the re-derivation owed to the new ones does it all) or the learner is gone.
    Records the fit it re-derived for once done.
    """
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return None
    fitted_at = user.scheduler_fitted_at
    # Answers are numbered as they are written: those past this one came after the start (the
    # newest of all learners' answers: one step down the primary key's index).
    began = Answer.objects.aggregate(last=Max("pk"))["last"] or 0
    done = 0
    after = 0
    while True:
        with transaction.atomic():
            # Read, not locked: a refit landing meanwhile sends a re-derivation of its own.
            now = User.objects.filter(pk=user_id).first()
            if now is None or now.scheduler_fitted_at != fitted_at:
                return None
            batch = list(
                Card.objects.select_for_update()
                .filter(user_id=user_id, pk__gt=after)
                .exclude(state=Card.State.NEW)
                .order_by("pk")[:batch_size]
            )
            if not batch:
                answered = Answer.objects.filter(user_id=user_id, pk__gt=began).values("card_id")
                late = list(
                    Card.objects.select_for_update()
                    .filter(user_id=user_id, pk__in=answered)
                    .exclude(state=Card.State.NEW)
                    .order_by("pk")
                )
                _rederive(now, late)
                User.objects.filter(pk=user_id, scheduler_fitted_at=fitted_at).update(
                    scheduler_rederived_at=fitted_at
                )
                return done
            after = batch[-1].pk
            _rederive(now, batch)
            done += len(batch)


def _rederive(user: User, batch: list[Card]) -> None:
    by_card: dict[int, list[Answer]] = {card.pk: [] for card in batch}
    reviews = Answer.objects.filter(
        card_id__in=list(by_card), mode=Answer.Mode.REVIEW, rating__isnull=False
    ).order_by("card_id", "created_at", "pk")
    for answer in reviews.only("pk", "card_id", "created_at", "rating", "card_before"):
        by_card[answer.card_id or 0].append(answer)
    changed: list[Answer] = []
    stepped: list[Card] = []
    for card in batch:
        log = [
            a for a in by_card[card.pk] if card.reset_at is None or a.created_at >= card.reset_at
        ]
        if not log:
            continue
        cards.history_replay(user=user, card=card, history=log)
        changed += log
        stepped.append(card)
    Answer.objects.bulk_update(changed, ["card_before", "card_after"], batch_size=500)
    # What re-deriving a card changes: its schedule, not its flags.
    derived = [
        f for f in cards.SCHEDULE_FIELDS if f not in ("leech", "suspended", "pending_reveal")
    ]
    Card.objects.bulk_update(stepped, derived, batch_size=500)
