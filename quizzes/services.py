"""Writes on answers: grade one answer and keep it, once, in one transaction.

The path of one answer: rebuild the variant from its signed token, read the typed text, grade it
with the engine, store the answer and its idempotency record, commit. Anything refused is refused
before the first write, so a refused answer leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils.html import escape

from accounts.models import User
from config.batches import delete_in_batches
from engine import (
    Grade,
    Interval,
    Refusal,
    Tolerance,
    grade,
    grade_choices,
    grade_numeric,
    read_number,
)
from engine.answer_key import expected_from_json
from engine.grading import Status, format_expected
from engine.scheduling import rating_for
from quizzes import cards, errors
from quizzes.content import mistakes_of
from quizzes.models import Answer, Choice, IdempotencyRecord, Question
from quizzes.variants import variant_for, variant_seed

SELF_RATING_SCORES = {"again": 0.0, "hard": 0.5, "good": 1.0, "easy": 1.0}


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


@dataclass(frozen=True)
class Replayable:
    """A response that a repeat of the same request gets back unchanged."""

    status_code: int
    body: dict[str, Any]
    replayed: bool = False


def request_fingerprint(*, method: str, path: str, body: Any) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


def idempotent(
    *, user: User, key: str | None, fingerprint: str, action: Callable[[], Replayable]
) -> Replayable:
    """Run `action` in one transaction, once per (user, key): a repeat gets the first response.

    The record is written in the action's transaction. While the first request holds the key,
    a repeat is refused with 409; the same key with another body is refused with 422. When a
    concurrent request inserted the same new row first (a learner's first card for a question),
    the whole action is tried once more and then finds that row.
    """
    for attempt in (1, 2):
        try:
            return _once(user=user, key=key, fingerprint=fingerprint, action=action)
        except IntegrityError:
            if attempt == 2:
                raise errors.idempotency_in_progress() from None
    raise AssertionError("unreachable")


def _once(
    *, user: User, key: str | None, fingerprint: str, action: Callable[[], Replayable]
) -> Replayable:
    with transaction.atomic():
        if key is None:
            return action()
        if not transaction_lock(f"{user.pk}:{key}", wait=False):
            raise errors.idempotency_in_progress()
        first = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if first is not None:
            if first.fingerprint != fingerprint:
                raise errors.idempotency_mismatch()
            return Replayable(first.status_code, first.body, replayed=True)
        result = action()
        IdempotencyRecord.objects.create(
            user=user,
            key=key,
            fingerprint=fingerprint,
            status_code=result.status_code,
            body=result.body,
        )
        return result


def transaction_lock(name: str, *, wait: bool = True) -> bool:
    """Takes a lock on `name` held to the end of the transaction (a PostgreSQL advisory lock):
    waits for it, or with `wait=False` returns False at once when someone else holds it. On
    SQLite, writers are serialized anyway, so it is always taken."""
    if connection.vendor != "postgresql":
        return True
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    function = "pg_advisory_xact_lock" if wait else "pg_try_advisory_xact_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [int.from_bytes(digest, "big", signed=True)])
        taken = cursor.fetchone()[0]
    return wait or bool(taken)


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
    verdict, seed, value = grade_submitted(
        user=user, question=question, choices=choices, submitted=submitted
    )
    answer = Answer(
        user=user,
        question=question,
        question_version=question.version,
        mode=submitted.mode,
        variant_seed=seed,
        response=submitted.response or "",
        value_read=value,
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


def grade_submitted(
    *, user: User, question: Question, choices: list[Choice], submitted: Submitted
) -> tuple[Grade, int | None, str]:
    if question.kind == Question.Kind.FREE_TEXT:
        if not submitted.self_rating:
            raise errors.invalid_field(
                "self_rating",
                "required",
                "Rate your own answer (again, hard, good or easy) after reading the model answer.",
            )
        score = SELF_RATING_SCORES[submitted.self_rating]
        status: Status = "correct" if score == 1 else "partial" if score > 0 else "incorrect"
        return Grade(status=status, score=score, misconception=None, correct_answer=""), None, ""

    if question.is_choice:
        return _grade_choices(question, choices, submitted), None, ""

    if submitted.response is None or submitted.response == "":
        raise errors.invalid_field("response", "required", "Type your answer as a number.")

    if question.is_generated:
        if not submitted.variant:
            raise errors.invalid_field(
                "variant", "required", "Send the variant token the question came with."
            )
        seed = variant_seed(token=submitted.variant, user_id=user.pk, question_id=question.pk)
        graded = grade(variant_for(question, seed), submitted.response)
        if isinstance(graded, Refusal):
            raise errors.unreadable_number(graded.message)
        return graded, seed, str(graded.value_read)

    read = read_number(submitted.response)
    if isinstance(read, Refusal):
        raise errors.unreadable_number(read.message)
    answer = expected_from_json(question.answer)
    tolerance = Tolerance.from_dict(question.tolerance) if question.tolerance else Tolerance.exact()
    verdict = grade_numeric(
        read,
        answer=answer,
        tolerance=tolerance,
        mistakes=mistakes_of(question),
        correct_answer=format_expected(answer) if not isinstance(answer, Interval) else None,
        solution_steps=question.solution_steps,
    )
    return verdict, None, str(read.value)


def _grade_choices(question: Question, choices: list[Choice], submitted: Submitted) -> Grade:
    picked = set(submitted.choice_ids or [])
    known = {c.pk for c in choices}
    if not picked:
        raise errors.invalid_field("choice_ids", "required", "Pick at least one choice.")
    if unknown := picked - known:
        raise errors.invalid_field(
            "choice_ids",
            "unknown_choice",
            f"Not a choice of this question: {', '.join(map(str, sorted(unknown)))}.",
        )
    multiple = question.kind == Question.Kind.MULTIPLE_CHOICE
    if not multiple and len(picked) != 1:
        raise errors.invalid_field("choice_ids", "one_choice", "Pick exactly one choice.")
    right = [c for c in choices if c.is_correct]
    return grade_choices(
        picked=picked,
        correct={c.pk for c in right},
        choices=known,
        multiple=multiple,
        correct_answer="; ".join(c.text_markdown for c in right),
    )


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
        "feedback_html": _feedback_html(question, grade),
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
        result["choices"] = [
            {"id": c.pk, "correct": c.is_correct, "explanation_html": c.explanation_html}
            for c in choices
        ]
    return result


def _feedback_html(question: Question, grade: Grade) -> str:
    if question.kind == Question.Kind.FREE_TEXT:
        lead = "Compare your answer with the model answer below."
    elif grade.status == "correct":
        lead = "Right."
    elif grade.status == "partial":
        lead = "Partly right."
    elif grade.misconception is not None:
        lead = f"Not quite: {grade.misconception.message}"
    else:
        lead = "Not quite."
    return f"<p>{escape(lead)}</p>" + question.explanation_html


def idempotency_records_prune(*, now: datetime, batch_size: int = 5_000) -> int:
    """Deletes records past `IDEMPOTENCY_TTL`, a bounded batch at a time; returns how many."""
    cutoff = now - timedelta(seconds=settings.IDEMPOTENCY_TTL)
    return delete_in_batches(
        IdempotencyRecord.objects.filter(created_at__lt=cutoff).order_by("pk"),
        batch_size=batch_size,
    )
