"""Offline reviews, synced in batches: each checked on its own, applied per card in time order.

A review made offline carries its client id and the time it was made. Reviews of one card are
applied in `reviewed_at` order whatever order they arrive in. A review older than the card's
last one is slotted into the history and the card rebuilt by replaying its whole log. A client
id seen before is skipped, so sending a batch again changes nothing. Each card is written in
its own transaction: one card's bad review never holds back another card's good ones.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from accounts.models import User
from engine import scheduling
from engine.scheduling import CardState, Rating, rating_for
from quizzes import cards
from quizzes.errors import AnswerRefused
from quizzes.models import Answer, Card, Choice, Question
from quizzes.services import Submitted, grade_submitted

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


def reviews_sync(
    *, user: User, reviews: list[OfflineReview], refused: dict[int, dict[str, Any]], now: datetime
) -> SyncOutcome:
    """Applies the valid reviews; `refused` holds the items the API layer already turned down,
    by position, so the results come back in the order the client sent them."""
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
        else:
            by_question[review.question_id].append(review)

    touched = []
    for question_id, group in by_question.items():
        group.sort(key=lambda r: (r.reviewed_at, r.index))
        card, applied = _apply_card(user=user, question=questions[question_id], group=group)
        results.update(applied)
        if card is not None:
            touched.append(card)
    return SyncOutcome(results=[results[i] for i in sorted(results)], cards=touched)


def _refused(review: OfflineReview, field_name: str, code: str, message: str) -> dict[str, Any]:
    return {
        "client_id": str(review.client_id),
        "status": "invalid",
        "errors": [{"field": field_name, "code": code, "message": message}],
    }


@transaction.atomic
def _apply_card(
    *, user: User, question: Question, group: list[OfflineReview]
) -> tuple[Card | None, dict[int, dict[str, Any]]]:
    choices: list[Choice] = list(question.choices.all())
    results: dict[int, dict[str, Any]] = {}
    graded: list[tuple[OfflineReview, Answer, Rating]] = []
    for review in group:
        try:
            verdict, seed, value = grade_submitted(
                user=user, question=question, choices=choices, submitted=review.submitted
            )
        except AnswerRefused as refusal:
            results[review.index] = _refused(
                review, refusal.field or "", refusal.code, refusal.message
            )
            continue
        answer = Answer(
            user=user,
            question=question,
            question_version=question.version,
            mode=Answer.Mode.REVIEW,
            variant_seed=seed,
            response=review.submitted.response or "",
            value_read=value,
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
    if not graded:
        return None, results

    card = cards.card_locked(user=user, question=question)
    earliest = graded[0][0].reviewed_at
    history: list[Answer] = []
    if card is None:
        card = cards.new_card(user=user, question=question)
        state = CardState.new(earliest)
    elif card.last_review is not None and earliest < card.last_review:
        # A late review: slot it into the history and replay the whole log from a new card.
        history = list(card.reviews.filter(mode=Answer.Mode.REVIEW).order_by("created_at", "pk"))
        state = CardState.new(min([earliest, *(a.created_at for a in history)]))
    else:
        state = cards.card_state(card)

    log = sorted(
        [(a.created_at, 0, a.pk, a, Rating(a.rating or Rating.AGAIN)) for a in history]
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
    card.save()
    for *_, answer, _ in log:
        answer.card = card
    if history:
        Answer.objects.bulk_update(history, ["card_before", "card_after"])
    Answer.objects.bulk_create([answer for _, answer, _ in graded])
    for review, answer, rating in graded:
        results[review.index] = {
            "client_id": str(review.client_id),
            "status": "applied",
            "answer_id": answer.pk,
            "score": answer.score,
            "rating": rating.label,
        }
    return card, results
