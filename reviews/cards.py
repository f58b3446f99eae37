"""Cards: each learner's schedule for each question, stepped by the engine's FSRS adapter.

Rows become `CardState` values for the engine and back; the card row is locked while a review
steps it, so two answers to one card at once are applied one after the other.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import User
from config import background
from engine import scheduling
from engine.scheduling import CardState, Rating, ReviewOutcome, SchedulerConfig
from quizzes.models import Question
from reviews import tasks
from reviews.models import Answer, Card, Deck

SCHEDULE_FIELDS = [
    *("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses"),
    *("leech", "suspended"),
]


def card_state(card: Card) -> CardState:
    return CardState(
        state=card.state,  # type: ignore[arg-type]
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
        reps=card.reps,
        lapses=card.lapses,
    )


def apply_state(card: Card, state: CardState) -> None:
    card.state = state.state
    card.step = state.step
    card.stability = state.stability
    card.difficulty = state.difficulty
    card.due = state.due
    card.last_review = state.last_review
    card.reps = state.reps
    card.lapses = state.lapses


def scheduler_config(user: User) -> SchedulerConfig:
    """The learner's retention goal, and their fitted parameters once they have some."""
    parameters = tuple(user.scheduler_parameters) if user.scheduler_parameters else None
    return SchedulerConfig(desired_retention=user.desired_retention, parameters=parameters)


def card_locked(*, user: User, question: Question) -> Card | None:
    """The learner's card for the question, locked for this transaction; None when the
    learner has none yet. A card made ahead in the learner's deck is still new and is
    stepped from there."""
    try:
        return Card.objects.select_for_update().get(user=user, question=question)
    except Card.DoesNotExist:
        return None


def card_review(
    *, card: Card | None, user: User, question: Question, rating: Rating, now: datetime
) -> tuple[Card, CardState, ReviewOutcome]:
    """Steps the card (locked by the caller's transaction, or made now) and saves it.

    A new card is inserted with its state after this first review, in one write; if another
    request inserted it first, the unique constraint fails and the caller retries. A card that
    reaches `LEECH_LAPSES` lapses is flagged as a leech and suspended.
    """
    if card is None:
        card = new_card(user=user, question=question)
        before = CardState.new(now)
    else:
        before = card_state(card)
        # Two answers at once: the one that got the lock second may hold the earlier clock
        # reading; it is applied after the first, so it counts as given no earlier.
        if before.last_review is not None and now < before.last_review:
            now = before.last_review
    outcome = scheduling.review(
        before,
        rating,
        now=now,
        config=scheduler_config(user),
        rng=scheduling.review_rng(card.seed, before.reps),
    )
    apply_state(card, outcome.state)
    mark_leech(card)
    card.save(update_fields=SCHEDULE_FIELDS if card.pk else None)
    return card, before, outcome


def new_card(*, user: User, question: Question) -> Card:
    """An unsaved card. Its fuzz seed comes from the learner and the question, so the same
    reviews always give the same schedule (an offline batch, replayed, lands where it did)."""
    return Card(
        user=user, question=question, seed=card_seed(user_id=user.pk, question_id=question.pk)
    )


def card_seed(*, user_id: int, question_id: int) -> int:
    """The card's fuzz seed: the same for a card made ahead and one made by its first review."""
    digest = hashlib.blake2b(f"card:{user_id}:{question_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest) >> 2


def mark_leech(card: Card) -> None:
    """A card that keeps lapsing is flagged and suspended, to be rewritten or relearned."""
    if card.lapses >= settings.LEECH_LAPSES and not card.leech:
        card.leech = True
        card.suspended = True
        _notify_leech(card)


def _notify_leech(card: Card) -> None:
    """Tells the learner once the review commits (the card is saved by then)."""
    # The primary key is read after commit: a card new in this transaction has one by then.
    transaction.on_commit(lambda: background.send(tasks.leech_notify, card.pk))


def review_summary(card: Card, outcome: ReviewOutcome, rating: Rating) -> dict[str, Any]:
    return {
        "card_id": card.pk,
        "state": card.state,
        "due": card.due.isoformat().replace("+00:00", "Z"),
        "interval_days": round(outcome.interval_days, 4),
        "rating": rating.label,
        "leech": card.leech,
    }


def card_action(*, card: Card, action: str, now: datetime) -> Card:
    """Suspend (kept out of the queue), unsuspend, or forget (back to new, counts cleared).

    Forgetting starts the card's review log over: `reset_at` marks where its new segment
    begins, and the reviews before it no longer count towards the schedule (a late offline
    review is replayed over the new segment only, and one made before the reset is refused).
    The card goes back among the new ones at its question's place in the course.
    """
    if action == "suspend":
        card.suspended = True
    elif action == "unsuspend":
        card.suspended = False
        card.leech = False
    elif action == "forget":
        apply_state(card, CardState.new(now))
        card.buried_until = None
        card.reset_at = now
        card.lesson_number, card.position = (
            Question.objects.filter(pk=card.question_id)
            .values_list("lesson__number", "position")
            .get()
        )
    else:
        raise ValueError(f"unknown card action {action!r}")
    card.save()
    return card


def review_undo(*, user: User) -> tuple[Card | None, int]:
    """Takes back the learner's last review: its answer row goes, its card returns to exactly
    the state before it (a card that review created is removed). Returns the card (None when
    removed) and the question's id. Raises Answer.DoesNotExist when there is nothing to undo,
    which includes a last review made before its card was forgotten: forgetting has already
    set it aside, and taking it back would bring back the state the learner reset.
    """
    with transaction.atomic():
        last = (
            Answer.objects.select_for_update()
            .filter(user=user, mode=Answer.Mode.REVIEW, card__isnull=False)
            .latest("created_at", "pk")
        )
        card = Card.objects.select_for_update(of=("self",)).get(reviews=last)
        question_id = card.question_id
        if card.reset_at is not None and last.created_at < card.reset_at:
            raise Answer.DoesNotExist("the last review was before its card was forgotten")
        before = CardState.from_dict(last.card_before or {})
        last.delete()
        if before.state == "new" and not card.reviews.exists():
            card.delete()
            # The deck may have counted this card as made: build it again in full next time.
            Deck.objects.filter(user=user).delete()
            return None, question_id
        apply_state(card, before)
        if card.leech and before.lapses < settings.LEECH_LAPSES:
            card.leech = False
            card.suspended = False
        card.save()
        return card, question_id
