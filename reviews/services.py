"""Writes on answers: grade one answer and keep it, once, in one transaction.

The path of one answer: rebuild the variant from its signed token, read the typed text, grade it
with the engine (`quizzes.grading`), decide how it counts (`answer_counting`), step the
learner's card, store the answer and its idempotency record (`reviews.idempotency`), commit.
Anything refused is refused before the first write, so a refused answer leaves nothing behind.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from accounts.models import User
from config import rows
from engine import Grade
from engine.scheduling import Rating, rating_for
from quizzes.grading import Graded, grade_submission
from quizzes.models import Choice, Question
from reviews import cards, errors, rollups
from reviews.feedback import answer_result, review_summary
from reviews.idempotency import Replayable
from reviews.models import Answer, Card, Reveal


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
    reveal: int | None = None
    covered_key_points: tuple[int, ...] | None = None
    """An interview question's key points the learner ticked (see `reviews.interview`)."""
    code_score: float | None = None
    """A coding question's share of tests passed, from its submission's run (`reviews.code`)."""


@dataclass(frozen=True)
class Counted:
    """How an answer counts: its mode, why it counts otherwise than it was sent (a notice),
    the reveal it follows, and its verdict (a review after a look at the answer scores 0)."""

    mode: str
    notice: str
    reveal_id: int | None
    grade: Grade


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
        by_key_points=submitted.covered_key_points is not None,
        code_score=submitted.code_score,
    )


def answer_counting(
    *,
    question: Question,
    graded: Graded,
    mode: str,
    card: Card | None,
    variant_answered: bool,
    reveal: int | None,
) -> Counted:
    """How a graded answer counts, from what the server knows of the learner's card.

    Review mode counts only what the server chose for the learner, once: an answer to a
    variant whose seed the learner picked, or to a token answered before (in any mode, since
    any answer shows the right one), is practice. A free-text review follows the reveal of the
    model answer its card waits for (`AnswerRefused` on `reveal` otherwise); a machine-graded
    review that follows a reveal counts as not known: Again, with a score of 0.
    """
    served, grade = graded.served, graded.grade
    if mode == Answer.Mode.REVIEW and served is not None and not served.server_chosen:
        return Counted(Answer.Mode.PRACTICE, Answer.Notice.SEED_CHOSEN, None, grade)
    if mode == Answer.Mode.REVIEW and variant_answered:
        return Counted(Answer.Mode.PRACTICE, Answer.Notice.VARIANT_ANSWERED, None, grade)
    if question.kind == Question.Kind.FREE_TEXT:
        if reveal is None:
            raise errors.missing_reveal()
        if mode == Answer.Mode.REVIEW and (card is None or card.pending_reveal_id != reveal):
            raise errors.stale_reveal()
        return Counted(mode, "", reveal, grade)
    if mode == Answer.Mode.REVIEW and card is not None and card.pending_reveal_id is not None:
        looked = dataclasses.replace(grade, status="incorrect", score=0.0)
        return Counted(mode, Answer.Notice.ANSWER_REVEALED, card.pending_reveal_id, looked)
    return Counted(mode, "", None, grade)


def review_rating(*, user: User, graded: Graded, counted: Counted, submitted: Submitted) -> Rating:
    """The FSRS rating of an answer that counts as a review: the learner's own for free text
    (or an override), otherwise from the verdict, and from how fast it came only under the
    learner's own threshold for Easy, where their history has earned one."""
    return rating_for(
        status=None if graded.self_rated else counted.grade.status,
        duration_ms=submitted.duration_ms,
        self_rating=submitted.self_rating,
        easy_ms=user.easy_answer_ms,
    )


def answer_row(
    *,
    user: User,
    question: Question,
    submitted: Submitted,
    graded: Graded,
    counted: Counted,
    now: datetime,
) -> Answer:
    """The answer as stored: what was sent, its verdict, how it counted; received `now`."""
    verdict = counted.grade
    return Answer(
        user=user,
        question=question,
        question_version=question.version,
        mode=counted.mode,
        variant_seed=graded.seed,
        variant_nonce=graded.served.nonce if graded.served else "",
        notice=counted.notice,
        reveal_id=counted.reveal_id,
        response=submitted.response or "",
        value_read=graded.value_read,
        choice_ids=sorted(submitted.choice_ids or []),
        status=verdict.status,
        score=verdict.score,
        misconception=verdict.misconception.code if verdict.misconception else "",
        self_rating=submitted.self_rating or "",
        duration_ms=submitted.duration_ms,
        client_id=submitted.client_id,
        covered_key_points=None
        if submitted.covered_key_points is None
        else list(submitted.covered_key_points),
        received_at=now,
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
    # In their order: from the kept question's prefetch, or read now for any other.
    choices = (
        sorted(question.choices.all(), key=lambda c: (c.position, c.pk))
        if question.is_choice
        else []
    )
    graded = grade_submitted(user=user, question=question, choices=choices, submitted=submitted)
    free_text, reveal = question.kind == Question.Kind.FREE_TEXT, submitted.reveal
    if free_text and reveal is None:
        raise errors.missing_reveal()
    nonce = graded.served.nonce if graded.served else ""
    card, answered = None, False
    if submitted.mode == Answer.Mode.REVIEW:
        card, answered = cards.card_locked(user=user, question=question, variant_nonce=nonce)
    elif (
        free_text
        # Practice leaves the card alone: any of the learner's reveals of the question will do.
        and not Reveal.objects.filter(pk=reveal or 0, user=user, question=question).exists()
    ):
        raise errors.stale_reveal()
    counted = answer_counting(
        question=question,
        graded=graded,
        mode=submitted.mode,
        card=card,
        variant_answered=answered,
        reveal=submitted.reveal,
    )
    answer = answer_row(
        user=user, question=question, submitted=submitted, graded=graded, counted=counted, now=now
    )
    review, writes = None, []
    if counted.mode == Answer.Mode.REVIEW:
        rating = review_rating(user=user, graded=graded, counted=counted, submitted=submitted)
        card, before, outcome = cards.card_stepped(
            card=card, user=user, question=question, rating=rating, now=now
        )
        if (card_written := cards.card_write(card)) is not None:
            writes.append(card_written)
        answer.card, answer.rating = card, int(rating)
        answer.card_before, answer.card_after = before.to_dict(), outcome.state.to_dict()
        if outcome.state.last_review is not None:
            answer.created_at = outcome.state.last_review
        review = review_summary(
            card_id=card.pk,
            after=outcome.state,
            interval_days=outcome.interval_days,
            rating=rating,
            leech=card.leech,
        )
    # The score's range is also a database constraint; checking it here would cost a query.
    # An answer has no unique field but its key, which the database gives, so there is no
    # uniqueness to check either.
    answer.full_clean(
        exclude=["user", "question", "card", "reveal"],
        validate_unique=False,
        validate_constraints=False,
    )
    # The card, the answer and the rollups, written together (one statement on PostgreSQL).
    writes.append(rows.inserting(answer))
    courses = {question.pk: question.course_id}
    writes += rollups.recording(user=user, answers=[answer], courses=courses)
    rows.write_together(writes)
    result = answer_result(
        answer=answer,
        question=question,
        choices=choices,
        grade=counted.grade,
        order=graded.served.order if graded.served else None,
        review=review,
    )
    return Replayable(201, result)
