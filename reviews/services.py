"""Writes on answers: grade one answer and keep it, once, in one transaction.

The path of one answer: rebuild the variant from its signed token, read the typed text, grade it
with the engine (`quizzes.grading`), step the learner's card, store the answer and its
idempotency record (`reviews.idempotency`), commit. Anything refused is refused before the first
write, so a refused answer leaves nothing behind.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accounts.models import User
from engine import Grade
from engine.scheduling import rating_for
from quizzes.grading import Graded, choice_verdicts, feedback_html, grade_submission
from quizzes.models import Choice, Question
from reviews import cards, errors
from reviews.idempotency import Replayable
from reviews.models import Answer


@dataclass(frozen=True)
class Submitted:
    """What the learner sent, already checked for types and lengths by the API layer."""

    response: str | None = None
    choice_ids: Sequence[int] | None = None
    variant: str | None = None
    self_rating: str | None = None
    mode: str = Answer.Mode.REVIEW
    duration_ms: int | None = None
    client_id: uuid.UUID | None = None


def grade_submitted(
    *, user: User, question: Question, choices: list[Choice], submitted: Submitted
) -> Graded:
    return grade_submission(
        user_id=user.pk,
        question=question,
        choices=choices,
        response=submitted.response,
        choice_ids=submitted.choice_ids,
        variant=submitted.variant,
        self_rating=submitted.self_rating,
    )


def answer_submit(
    *, user: User, question: Question, submitted: Submitted, now: datetime
) -> Replayable:
    """Grade and store one answer; in review mode, step the learner's card in the same
    transaction. The caller runs it inside `idempotent`."""
    if (
        submitted.client_id is not None
        and Answer.objects.filter(user=user, client_id=submitted.client_id).exists()
    ):
        # Sent again after its idempotency record expired, or first sent by an offline sync.
        raise errors.already_answered()
    choices = list(question.choices.order_by("position")) if question.is_choice else []
    graded = grade_submitted(user=user, question=question, choices=choices, submitted=submitted)
    verdict = graded.grade
    answer = Answer(
        user=user,
        question=question,
        question_version=question.version,
        mode=submitted.mode,
        variant_seed=graded.seed,
        response=submitted.response or "",
        value_read=graded.value_read,
        choice_ids=sorted(submitted.choice_ids or []),
        status=verdict.status,
        score=verdict.score,
        misconception=verdict.misconception.code if verdict.misconception else "",
        self_rating=submitted.self_rating or "",
        duration_ms=submitted.duration_ms,
        client_id=submitted.client_id,
    )
    review = None
    if submitted.mode == Answer.Mode.REVIEW:
        rating = rating_for(
            status=None if question.kind == Question.Kind.FREE_TEXT else verdict.status,
            duration_ms=submitted.duration_ms,
            self_rating=submitted.self_rating,
        )
        card, before, outcome = cards.card_review(
            card=cards.card_locked(user=user, question=question),
            user=user,
            question=question,
            rating=rating,
            now=now,
        )
        answer.card, answer.rating = card, int(rating)
        answer.card_before, answer.card_after = before.to_dict(), outcome.state.to_dict()
        if outcome.state.last_review is not None:
            answer.created_at = outcome.state.last_review
        review = cards.review_summary(card, outcome, rating)
    # The score's range is also a database constraint; checking it here would cost a query.
    answer.full_clean(exclude=["user", "question", "card"], validate_constraints=False)
    answer.save()
    result = answer_result(answer=answer, question=question, choices=choices, grade=verdict)
    result["review"] = review
    return Replayable(201, result)


def answer_result(
    *, answer: Answer, question: Question, choices: list[Choice], grade: Grade
) -> dict[str, Any]:
    """The response to an answer: the verdict, why, and what was right."""
    mistake = grade.misconception
    result: dict[str, Any] = {
        "answer_id": answer.pk,
        "question": question.pk,
        "question_version": answer.question_version,
        "mode": answer.mode,
        "status": "self_graded" if question.kind == Question.Kind.FREE_TEXT else grade.status,
        "score": grade.score,
        "feedback_html": feedback_html(question, grade),
        "misconception": None
        if mistake is None
        else {"code": mistake.code, "message": mistake.message},
        "correct_answer": grade.correct_answer,
        "solution_steps": list(grade.solution_steps),
        "value_read": None if grade.value_read is None else float(grade.value_read),
        "review": None,
    }
    if question.model_answer_html:
        result["model_answer_html"] = question.model_answer_html
    if question.is_choice:
        result["choices"] = choice_verdicts(choices)
    return result
