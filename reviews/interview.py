"""Practising the interview bank: a question answered in the learner's own words (typed, or
said out loud), its model answer revealed, and the key points the answer covered ticked. The
ticks suggest a rating (`engine.scheduling.rating_from_key_points`: all of them Good, most
Hard, few Again), which the learner may move one step either way; the answer is then a review
like any other, so the question joins the learner's schedule.

The answer goes through the answer path (`services.answer_submit`), which the caller runs
inside `idempotent`: a practice sent twice counts once.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from accounts.models import User
from engine.scheduling import Rating, rating_from_key_points, ratings_near
from quizzes.errors import AnswerRefused, invalid_field
from quizzes.models import Question
from reviews import reveals, services
from reviews.idempotency import Replayable
from reviews.models import Answer

MAX_KEY_POINTS = 20
"""More ticks than any question has key points is not a list worth reading."""


@dataclass(frozen=True)
class Ticked:
    """What the learner said of their answer: the key points it covered (their places in the
    question's list, from 0) and, if they moved it, their own rating."""

    covered: tuple[int, ...]
    suggested: Rating
    rating: Rating


def key_points_of(question: Question) -> list[str]:
    return list(question.entry.key_points) if question.in_bank else []


def ticked(
    question: Question,
    *,
    covered: Sequence[int],
    rating: str | Rating | None = None,
    step: int = 0,
) -> Ticked:
    """The ticks checked against the question's key points, the rating they suggest, and the
    rating that counts: the learner's own when given, within one step of the suggestion, or
    the suggestion moved `step` (-1, 0 or 1; not past Again or Easy). Raises `AnswerRefused`
    naming `covered_key_points` or `rating`."""
    points = key_points_of(question)
    if not question.in_bank or question.kind != Question.Kind.FREE_TEXT or not points:
        raise AnswerRefused(
            422,
            None,
            "not_rated_by_key_points",
            "This question is not answered in words against key points: answer it at "
            f"/api/v1/questions/{question.pk}/answers/.",
        )
    if len(covered) > MAX_KEY_POINTS or any(
        isinstance(i, bool) or not isinstance(i, int) for i in covered
    ):
        raise invalid_field(
            "covered_key_points", "invalid", "Send the key points' places as whole numbers."
        )
    if len(set(covered)) != len(covered):
        raise invalid_field(
            "covered_key_points", "duplicate", "Name each key point you covered once."
        )
    if any(not 0 <= i < len(points) for i in covered):
        raise invalid_field(
            "covered_key_points",
            "out_of_range",
            f"This question has {len(points)} key points, numbered 0 to {len(points) - 1}.",
        )
    suggested = rating_from_key_points(len(covered), len(points))
    chosen = Rating(min(max(int(suggested) + max(min(step, 1), -1), Rating.AGAIN), Rating.EASY))
    if rating is not None:
        chosen = rating if isinstance(rating, Rating) else Rating.from_label(rating)
    near = ratings_near(suggested)
    if chosen not in near:
        *first, last = [r.label for r in near]
        raise invalid_field(
            "rating",
            "too_far_from_key_points",
            f"The key points you covered suggest {suggested.label.capitalize()}; a rating may "
            f"move it one step at most: {', '.join(first)} or {last}.",
        )
    return Ticked(covered=tuple(sorted(covered)), suggested=suggested, rating=chosen)


def interview_practice(
    *,
    user: User,
    question: Question,
    ticks: Ticked,
    response: str = "",
    reveal: int | None = None,
    duration_ms: int | None = None,
    client_id: uuid.UUID | None = None,
    now: datetime,
) -> Replayable:
    """Records a practised bank question as a review: the model answer's reveal (unless the
    learner looked already: `reveal`), then the answer rated by its key points, in the
    caller's transaction. The response is the answer path's, with its `key_points`."""
    if reveal is None:
        looked = reveals.reveal_create(user=user, question=question, variant=None, now=now)
        reveal = looked.reveal.pk
    return services.answer_submit(
        user=user,
        question=question,
        submitted=services.Submitted(
            response=response,
            self_rating=ticks.rating.label,
            mode=Answer.Mode.REVIEW,
            duration_ms=duration_ms,
            client_id=client_id,
            reveal=reveal,
            covered_key_points=ticks.covered,
        ),
        now=now,
    )
