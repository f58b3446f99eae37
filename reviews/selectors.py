"""Reads on a learner's cards and answers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Prefetch, QuerySet

from accounts.exports import ROWS
from accounts.models import User
from quizzes.models import Choice
from reviews.models import (
    Answer,
    Card,
    CodeSubmission,
    Deck,
    IdempotencyRecord,
    MockInterview,
    MockQuestion,
    Reveal,
)


def cards_of(*, user: User) -> QuerySet[Card]:
    """The learner's cards, soonest due first (another learner's cards are never in it):
    the ones reviewed at least once, not the new ones made ahead for unseen questions."""
    return Card.objects.filter(user=user).seen().order_by("due", "pk")


def answer_of(*, user: User, answer_id: int) -> Answer | None:
    """The learner's answer with what its feedback needs; None for anyone else's."""
    return (
        Answer.objects.filter(user=user, pk=answer_id)
        .select_related("question", "card")
        .prefetch_related(
            Prefetch("question__choices", queryset=Choice.objects.order_by("position"))
        )
        .first()
    )


def export_answers(user: User) -> Iterator[dict[str, Any]]:
    return (
        {
            "question": a.question.key,
            "question_version": a.question_version,
            "mode": a.mode,
            "variant_seed": None if a.variant_seed is None else str(a.variant_seed),
            "response": a.response,
            "choice_ids": a.choice_ids,
            "status": a.status,
            "score": a.score,
            "misconception": a.misconception or None,
            "self_rating": a.self_rating or None,
            "duration_ms": a.duration_ms,
            "client_id": str(a.client_id) if a.client_id else None,
            "rating": a.rating,
            "card_before": a.card_before,
            "card_after": a.card_after,
            "notice": a.notice or None,
            "reveal": a.reveal_id,
            "covered_key_points": a.covered_key_points,
            "created_at": a.created_at.isoformat(),
            "received_at": a.received_at.isoformat(),
        }
        for a in Answer.objects.filter(user=user)
        .select_related("question")
        .order_by("pk")
        .iterator(ROWS)
    )


def export_deck(user: User) -> dict[str, Any] | None:
    """How far the learner's new cards have been made, if they have been."""
    deck = Deck.objects.filter(user=user).first()
    if deck is None:
        return None
    return {
        "revision": deck.revision,
        "questions_through": deck.questions_through,
        "built_at": deck.built_at.isoformat(),
    }


def export_stored_responses(user: User) -> Iterator[dict[str, Any]]:
    """The responses kept to answer a repeated request (its Idempotency-Key) the same way."""
    return (
        {
            "key": r.key,
            "status_code": r.status_code,
            "response": r.body,
            "created_at": r.created_at.isoformat(),
        }
        for r in IdempotencyRecord.objects.filter(user=user).order_by("pk").iterator(ROWS)
    )


def export_reveals(user: User) -> Iterator[dict[str, Any]]:
    """Each time the learner looked at an answer first."""
    return (
        {
            "id": r.pk,
            "question": r.question.key,
            "variant_seed": None if r.variant_seed is None else str(r.variant_seed),
            "created_at": r.created_at.isoformat(),
        }
        for r in Reveal.objects.filter(user=user)
        .select_related("question")
        .order_by("pk")
        .iterator(ROWS)
    )


def export_mock_interviews(user: User) -> list[dict[str, Any]]:
    """The learner's mock interviews: what they chose, and each question with when it was
    shown and answered (the answer itself is among the answers)."""
    mocks = MockInterview.objects.filter(user=user).order_by("pk")
    asked = (
        MockQuestion.objects.filter(mock__user=user)
        .select_related("question", "answer")
        .order_by("mock_id", "position")
    )
    by_mock: dict[int, list[dict[str, Any]]] = {}
    for item in asked:
        by_mock.setdefault(item.mock_id, []).append(
            {
                "position": item.position,
                "question": item.question.key,
                "shown_at": item.shown_at.isoformat() if item.shown_at else None,
                "answered_at": item.answer.created_at.isoformat() if item.answer else None,
            }
        )
    return [
        {
            "level": mock.level or None,
            "categories": mock.categories,
            "created_at": mock.created_at.isoformat(),
            "finished_at": mock.finished_at.isoformat() if mock.finished_at else None,
            "questions": by_mock.get(mock.pk, []),
        }
        for mock in mocks
    ]


def export_code_submissions(user: User) -> Iterator[dict[str, Any]]:
    """The code the learner sent for coding questions, with how each run went."""
    return (
        {
            "question": s.question.key,
            "run": s.run,
            "source": s.source,
            "status": s.status,
            "tests": s.tests,
            "score": s.score,
            "created_at": s.created_at.isoformat(),
            "finished_at": s.finished_at.isoformat() if s.finished_at else None,
        }
        for s in CodeSubmission.objects.filter(user=user)
        .select_related("question")
        .order_by("pk")
        .iterator(ROWS)
    )


def export_cards(user: User) -> Iterator[dict[str, Any]]:
    return (
        dict(row)
        for row in Card.objects.filter(user=user)
        .seen()
        .order_by("pk")
        .values(
            "question__key",
            "state",
            "step",
            "stability",
            "difficulty",
            "due",
            "last_review",
            "reps",
            "lapses",
            "suspended",
            "leech",
            "buried_until",
            "reset_at",
        )
        .iterator(ROWS)
    )
