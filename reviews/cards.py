"""Cards: each learner's schedule for each question, stepped by the engine's FSRS adapter.

Rows become `CardState` values for the engine and back; the card row is locked while a review
steps it, so two answers to one card at once are applied one after the other.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connections, router, transaction
from django.db.models import Q
from django.db.transaction import TransactionManagementError

from accounts.models import User
from config import background, rows
from engine import scheduling
from engine.scheduling import CardState, Rating, ReviewOutcome, SchedulerConfig
from quizzes.models import Question
from reviews import rollups, tasks
from reviews.days import day_start
from reviews.models import Answer, Card, Deck

SCHEDULE_FIELDS = [
    *("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses"),
    *("leech", "suspended", "pending_reveal"),
]
"""What a review changes on a card: its schedule, its leech flags, and the reveal it answers."""


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
    """The learner's retention goal (raised for the reviews that cannot be placed at it), and
    their fitted parameters once they have some."""
    parameters = tuple(user.scheduler_parameters) if user.scheduler_parameters else None
    return SchedulerConfig(desired_retention=user.scheduled_retention, parameters=parameters)


CARD_COLUMNS = rows.Columns(Card)


@functools.cache
def _card_locked_sql(alias: str, *, with_nonce: bool) -> str:
    connection = connections[alias]
    quote = connection.ops.quote_name
    card, answers = quote(Card._meta.db_table), quote(Answer._meta.db_table)
    used = (
        f"EXISTS (SELECT 1 FROM {answers} WHERE {answers}.{quote('user_id')} = %s"
        f" AND {answers}.{quote('variant_nonce')} = %s)"
        if with_nonce
        else "FALSE"
    )
    sql = (
        f"SELECT {CARD_COLUMNS.select(Card._meta.db_table, connection)}, {used} FROM {card}"
        f" WHERE {card}.{quote('user_id')} = %s AND {card}.{quote('question_id')} = %s"
    )
    return sql + " FOR UPDATE" if connection.features.has_select_for_update else sql


def card_locked(
    *, user: User, question: Question, variant_nonce: str = ""
) -> tuple[Card | None, bool]:
    """The learner's card for the question, locked for this transaction (None when the
    learner has none yet), and whether the variant token `variant_nonce` was answered before,
    in any mode. A card made ahead in the learner's deck is still new and is stepped from there.

    One query when the learner has a card for the question; without one, a second looks for
    the token's earlier answers (a practice answer leaves no card behind). Every answer makes
    this read, so its SQL is written once (`config.rows`) rather than compiled each time.
    """
    connection = connections[router.db_for_write(Card)]
    if not connection.in_atomic_block:
        raise TransactionManagementError("card_locked locks the card: call it in a transaction")
    sql = _card_locked_sql(connection.alias, with_nonce=bool(variant_nonce))
    params: list[Any] = [user.pk, variant_nonce] if variant_nonce else []
    with rows.cursor(connection) as cursor:
        cursor.execute(sql, [*params, user.pk, question.pk])
        row = cursor.fetchone()
    if row is None:
        answered = bool(variant_nonce) and (
            Answer.objects.filter(user=user, variant_nonce=variant_nonce).exists()
        )
        return None, answered
    return CARD_COLUMNS.instance(row, connection), bool(row[-1])


def card_review(
    *, card: Card | None, user: User, question: Question, rating: Rating, now: datetime
) -> tuple[Card, CardState, ReviewOutcome]:
    """Steps the card (locked by the caller's transaction, or made now) and saves it.

    A new card is inserted with its state after this first review, in one write; if another
    request inserted it first, the unique constraint fails and the caller retries. A card that
    reaches `LEECH_LAPSES` lapses is flagged as a leech and suspended.
    """
    card, before, outcome = card_stepped(
        card=card, user=user, question=question, rating=rating, now=now
    )
    write = card_write(card)
    if write is not None:
        rows.write_together([write])
    return card, before, outcome


def card_stepped(
    *, card: Card | None, user: User, question: Question, rating: Rating, now: datetime
) -> tuple[Card, CardState, ReviewOutcome]:
    """`card_review` up to the write: the card stepped in memory (a new one made, unsaved)."""
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
        rng=scheduling.review_seeds(card.seed, before.reps),
    )
    apply_state(card, outcome.state)
    card.pending_reveal = None  # this review is the one a reveal was waiting for
    mark_leech(card)
    return card, before, outcome


def card_write(card: Card) -> rows.Write | None:
    """The write of a stepped card already in its table, to go with the answer's writes
    (every review makes it: its SQL is kept); a new card is inserted now (None)."""
    if card.pk:
        return rows.updating(card, SCHEDULE_FIELDS)
    card.save()
    return None


def log_replay(
    *, user: User, card: Card, state: CardState, log: Sequence[tuple[datetime, Answer, Rating]]
) -> None:
    """Steps the card from `state` through the reviews of `log`, in the order given (time
    order), rewriting each one's rating and card before and after, and leaves the card in the
    state the last one left it. Each step is seeded by its place in the card's history, as a
    live review is, so replaying the same log lands where the reviews did."""
    config = scheduler_config(user)
    for when, answer, rating in log:
        rng = scheduling.review_seeds(card.seed, state.reps)
        outcome = scheduling.review(state, rating, now=when, config=config, rng=rng)
        answer.card_before, answer.card_after = state.to_dict(), outcome.state.to_dict()
        answer.rating = int(rating)
        state = outcome.state
    apply_state(card, state)


def history_replay(*, user: User, card: Card, history: Sequence[Answer]) -> None:
    """Steps the card, from new, through `history` (its segment's review answers in time
    order, none before a reset) with the learner's parameters, as `log_replay` does."""
    log_replay(
        user=user,
        card=card,
        state=CardState.new(card.reset_at or history[0].created_at),
        log=[(a.created_at, a, Rating(a.rating or Rating.AGAIN)) for a in history],
    )


def new_card(*, user: User, question: Question) -> Card:
    """An unsaved card. Its fuzz seed comes from the learner and the question, so the same
    reviews always give the same schedule (an offline batch, replayed, lands where it did).
    A question of the interview bank is in no lesson, and neither is its card."""
    return Card(
        user=user,
        question=question,
        lesson_id=question.lesson_id,
        seed=card_seed(user_id=user.pk, question_id=question.pk),
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
        card.lesson_number, card.position = course_place(card.question_id)
    else:
        raise ValueError(f"unknown card action {action!r}")
    card.save()
    return card


def card_bury(*, card: Card, user: User, now: datetime) -> Card:
    """Keeps the card out of the queue until the learner's next study day begins."""
    card.buried_until = day_start(user=user, now=now) + timedelta(days=1)
    card.save(update_fields=["buried_until"])
    return card


def course_place(question_id: int) -> tuple[int, int]:
    """A question's place in the course (its lesson's number, its position), where its card
    sits among the new ones; (0, 0) for the interview bank's, which the queue never serves
    as new (a bank question joins the schedule when it is practised)."""
    number, position = (
        Question.objects.filter(pk=question_id).values_list("lesson__number", "position").get()
    )
    return (0, 0) if number is None else (number, position)


def review_undo(*, user: User) -> tuple[Card | None, int]:
    """Takes back the review the server received last (an offline review synced after an
    answer given online is the later one, whatever time it was made): its answer row goes and
    its card returns to the state it would be in without it. An answer to a variant token
    stays, as practice: its feedback showed that variant's answer, so the token must not count
    for review again. Returns the card (None when removed) and the question's id.

    When the review is its card's latest, the card goes back to exactly the state before it
    (a card that review created is removed); when later reviews of the card arrived before it
    (it was synced late), the card's log is replayed without it. A reveal the review followed
    is waiting again. Raises Answer.DoesNotExist when there is nothing to undo, which includes
    a last review made before its card was forgotten: forgetting has already set it aside, and
    taking it back would bring back the state the learner reset.
    """
    with transaction.atomic():
        last = (
            Answer.objects.select_for_update()
            .filter(user=user, mode=Answer.Mode.REVIEW, card__isnull=False)
            .latest("received_at", "pk")
        )
        card = (
            Card.objects.select_for_update(of=("self",))
            .select_related("question__lesson")
            .get(reviews=last)
        )
        question_id = card.question_id
        if card.reset_at is not None and last.created_at < card.reset_at:
            raise Answer.DoesNotExist("the last review was before its card was forgotten")
        segment = card.reviews.filter(mode=Answer.Mode.REVIEW).exclude(pk=last.pk)
        if card.reset_at is not None:
            segment = segment.filter(created_at__gte=card.reset_at)
        later = segment.filter(
            Q(created_at__gt=last.created_at) | Q(created_at=last.created_at, pk__gt=last.pk)
        )
        has_later = later.exists()
        before = CardState.from_dict(last.card_before or {})
        reveal_id = last.reveal_id
        taken_back = rollups.study_date_at(user=user, moment=last.created_at)
        if last.variant_nonce:
            last.mode, last.notice, last.card, last.rating = Answer.Mode.PRACTICE, "", None, None
            last.card_before = last.card_after = None
            last.save(
                update_fields=["mode", "notice", "card", "rating", "card_before", "card_after"]
            )
        else:
            last.delete()
        if card.pending_reveal_id is None:
            card.pending_reveal_id = reveal_id
        history = list(segment.order_by("created_at", "pk")) if has_later else []
        if history:
            history_replay(user=user, card=card, history=history)
            Answer.objects.bulk_update(history, ["card_before", "card_after", "rating"])
        # The day of the review taken back, and those of the reviews replayed without it.
        replayed = {rollups.study_date_at(user=user, moment=a.created_at) for a in history}
        rollups.refresh(user=user, course_id=card.question.course_id, days={taken_back, *replayed})
        if not history and before.state == "new" and not card.reviews.exists():
            if card.pending_reveal_id is None:
                card.delete()
                # The deck may have counted this card as made: build it again in full next time.
                Deck.objects.filter(user=user).delete()
                return None, question_id
            apply_state(card, before)
            # Kept for the reveal it waits for: back among the new cards, in course order.
            card.lesson_number, card.position = course_place(question_id)
        elif not history:
            apply_state(card, before)
        if card.leech and card.lapses < settings.LEECH_LAPSES:
            card.leech = False
            card.suspended = False
        card.save()
        return card, question_id
