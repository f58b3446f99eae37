"""Offline reviews, synced in batches: each checked on its own, applied per card in time order.

A review made offline carries its client id and the time it was made. Reviews of one card are
applied in `reviewed_at` order whatever order they arrive in. A review older than the card's
last one is slotted into the history and the card rebuilt by replaying its whole log. A client
id seen before is skipped, so sending a batch again changes nothing. A refused review is
reported and never holds back the good ones; the good ones are written in one transaction.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import F, Q

from accounts.models import User
from config.locks import transaction_lock
from engine import scheduling
from engine.scheduling import CardState, Rating, rating_for
from quizzes.errors import AnswerRefused
from quizzes.models import Choice, Question
from quizzes.selectors import question_is_open_to
from reviews import bulk, cards
from reviews.models import Answer, Card
from reviews.services import Submitted, grade_submitted

MAX_BATCH = 1_000
CLOCK_SKEW = timedelta(minutes=5)


@dataclass
class OfflineReview:
    index: int
    client_id: uuid.UUID
    question_id: int
    reviewed_at: datetime
    submitted: Submitted


@dataclass
class SyncOutcome:
    results: list[dict[str, Any]]
    cards: list[Card] = field(default_factory=list)


@transaction.atomic
def reviews_sync(
    *, user: User, reviews: list[OfflineReview], refused: dict[int, dict[str, Any]], now: datetime
) -> SyncOutcome:
    """Applies the valid reviews; `refused` holds the items the API layer already turned down,
    by position, so the results come back in the order the client sent them."""
    # A sync sent again while the first is still running (an app retrying after a timeout)
    # waits for it, then finds its client ids taken: no review counts twice.
    transaction_lock(f"sync:{user.pk}")
    results: dict[int, dict[str, Any]] = dict(refused)
    seen = set(
        Answer.objects.filter(user=user, client_id__in=[r.client_id for r in reviews]).values_list(
            "client_id", flat=True
        )
    )
    questions = {
        q.pk: q
        for q in Question.objects.live()
        .filter(pk__in={r.question_id for r in reviews})
        .select_related("section")
        .prefetch_related("choices")
    }
    by_question: dict[int, list[OfflineReview]] = defaultdict(list)
    for review in reviews:
        if review.client_id in seen:
            results[review.index] = {"client_id": str(review.client_id), "status": "duplicate"}
            continue
        seen.add(review.client_id)
        if review.reviewed_at > now + CLOCK_SKEW:
            results[review.index] = _refused(
                review, "reviewed_at", "in_future", "This time is in the future."
            )
        elif review.question_id not in questions:
            results[review.index] = _refused(
                review, "question", "not_found", f"There is no question {review.question_id}."
            )
        elif not question_is_open_to(user, questions[review.question_id]):
            results[review.index] = _refused(
                review,
                "question",
                "pro_required",
                f"Question {review.question_id} is part of Pro and needs a Pro plan.",
            )
        else:
            by_question[review.question_id].append(review)

    touched = _apply(user=user, questions=questions, by_question=by_question, results=results)
    return SyncOutcome(results=[results[i] for i in sorted(results)], cards=touched)


@transaction.atomic
def _apply(
    *,
    user: User,
    questions: dict[int, Question],
    by_question: dict[int, list[OfflineReview]],
    results: dict[int, dict[str, Any]],
) -> list[Card]:
    """Every card of the batch in one transaction, with a fixed number of writes: the cards
    are locked in one query, stepped in memory, and written back in bulk."""
    locked = {
        card.question_id: card
        for card in Card.objects.select_for_update().filter(user=user, question_id__in=by_question)
    }
    _refuse_before_reset(locked=locked, by_question=by_question, results=results)
    late = [
        card.pk
        for question_id, card in locked.items()
        if card.last_review is not None
        and min(r.reviewed_at for r in by_question[question_id]) < card.last_review
    ]
    histories: dict[int, list[Answer]] = defaultdict(list)
    # A forgotten card's log is replayed from its reset on: what came before was set aside.
    for answer in (
        Answer.objects.filter(card_id__in=late, mode=Answer.Mode.REVIEW)
        .filter(Q(card__reset_at__isnull=True) | Q(created_at__gte=F("card__reset_at")))
        .order_by("created_at", "pk")
    ):
        histories[answer.card_id or 0].append(answer)

    stepped: list[tuple[Card, list[tuple[OfflineReview, Answer, Rating]]]] = []
    for question_id, group in by_question.items():
        group.sort(key=lambda r: (r.reviewed_at, r.index))
        question = questions[question_id]
        card = locked.get(question_id)
        graded = _grade_group(user=user, question=question, group=group, results=results)
        if not graded:
            continue
        card = card or cards.new_card(user=user, question=question)
        history = histories.get(card.pk, []) if card.pk else []
        _replay(user=user, card=card, history=history, graded=graded)
        stepped.append((card, graded))

    known = [card for card, _ in stepped if card.pk is not None]
    # PostgreSQL and SQLite 3.35+ hand back the new cards' ids, which the answers point at.
    Card.objects.bulk_create([card for card, _ in stepped if card.pk is None])
    bulk.card_schedules_write(cards=known, fields=cards.SCHEDULE_FIELDS)
    rewritten = [a for card, _ in stepped for a in histories.get(card.pk, [])]
    Answer.objects.bulk_update(rewritten, ["card_before", "card_after"], batch_size=500)
    answers = []
    for card, graded in stepped:
        for _, answer, _ in graded:
            answer.card = card
            answers.append(answer)
    bulk.answers_insert(answers=answers)
    for _, graded in stepped:
        for review, answer, rating in graded:
            results[review.index] = {
                "client_id": str(review.client_id),
                "status": "applied",
                "answer_id": answer.pk,
                "score": answer.score,
                "rating": rating.label,
            }
    return [card for card, _ in stepped]


def _refused(review: OfflineReview, field_name: str, code: str, message: str) -> dict[str, Any]:
    return {
        "client_id": str(review.client_id),
        "status": "invalid",
        "errors": [{"field": field_name, "code": code, "message": message}],
    }


def _grade_group(
    *,
    user: User,
    question: Question,
    group: list[OfflineReview],
    results: dict[int, dict[str, Any]],
) -> list[tuple[OfflineReview, Answer, Rating]]:
    """Grades one card's reviews; a refused one is reported and left out."""
    choices: list[Choice] = list(question.choices.all())
    graded: list[tuple[OfflineReview, Answer, Rating]] = []
    for review in group:
        try:
            result = grade_submitted(
                user=user, question=question, choices=choices, submitted=review.submitted
            )
        except AnswerRefused as refusal:
            results[review.index] = _refused(
                review, refusal.field or "", refusal.code, refusal.message
            )
            continue
        verdict = result.grade
        answer = Answer(
            user=user,
            question=question,
            question_version=question.version,
            mode=Answer.Mode.REVIEW,
            variant_seed=result.seed,
            response=review.submitted.response or "",
            value_read=result.value_read,
            choice_ids=sorted(review.submitted.choice_ids or []),
            status=verdict.status,
            score=verdict.score,
            misconception=verdict.misconception.code if verdict.misconception else "",
            self_rating=review.submitted.self_rating or "",
            duration_ms=review.submitted.duration_ms,
            client_id=review.client_id,
            created_at=review.reviewed_at,
        )
        rating = rating_for(
            status=None if question.kind == Question.Kind.FREE_TEXT else verdict.status,
            duration_ms=review.submitted.duration_ms,
            self_rating=review.submitted.self_rating,
        )
        graded.append((review, answer, rating))
    return graded


def _refuse_before_reset(
    *,
    locked: dict[int, Card],
    by_question: dict[int, list[OfflineReview]],
    results: dict[int, dict[str, Any]],
) -> None:
    """Refuses the reviews made before their card was forgotten. Forgetting starts the card
    over; a review from before it belongs to the history the learner set aside, so it is
    reported as invalid and not stored (sending it again gets the same answer)."""
    for question_id, card in list(locked.items()):
        if card.reset_at is None:
            continue
        kept = []
        for review in by_question[question_id]:
            if review.reviewed_at < card.reset_at:
                results[review.index] = _refused(
                    review,
                    "reviewed_at",
                    "before_forget",
                    "This card was forgotten after this review was made; it no longer counts.",
                )
            else:
                kept.append(review)
        if kept:
            by_question[question_id] = kept
        else:
            del by_question[question_id], locked[question_id]


def _replay(
    *,
    user: User,
    card: Card,
    history: list[Answer],
    graded: list[tuple[OfflineReview, Answer, Rating]],
) -> None:
    """Steps the card through its new reviews; with a `history` (a late review arrived), the
    whole log is replayed from a new card, and every entry's before/after is rewritten. For a
    forgotten card the log is its segment since the reset, replayed from the card as it was
    left then (new, due at the reset)."""
    earliest = graded[0][0].reviewed_at
    if card.pk is None:
        state = CardState.new(earliest)
    elif history:
        state = CardState.new(card.reset_at or min([earliest, *(a.created_at for a in history)]))
    else:
        state = cards.card_state(card)
    log = sorted(
        [(a.created_at, 0, a.pk or 0, a, Rating(a.rating or Rating.AGAIN)) for a in history]
        + [(r.reviewed_at, 1, r.index, a, rating) for r, a, rating in graded],
        key=lambda item: item[:3],
    )
    config = cards.scheduler_config(user)
    for when, _, _, answer, rating in log:
        # Seeded by the review's place in the card's history, as a live review is.
        rng = scheduling.review_rng(card.seed, state.reps)
        outcome = scheduling.review(state, rating, now=when, config=config, rng=rng)
        answer.card_before, answer.card_after = state.to_dict(), outcome.state.to_dict()
        answer.rating = int(rating)
        state = outcome.state
    cards.apply_state(card, state)
    cards.mark_leech(card)
