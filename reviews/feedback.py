"""What a learner is told about an answer: the verdict, why, what was right, and how it counted.

The same shape answers a new answer and, rebuilt from what was stored, a past one
(`GET /api/v1/answers/{id}/`); a synced review carries the verdict's core.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine import Grade
from engine.scheduling import CardState, Rating, rating_from_key_points
from quizzes.grading import answer_key, choice_verdicts, feedback_html, stored_grade
from quizzes.models import Choice, Question
from reviews.models import Answer

NOTICES = {
    Answer.Notice.SEED_CHOSEN: (
        "You picked this variant's seed, so this answer counts as practice. Reviews count "
        "the variants the server picks for you."
    ),
    Answer.Notice.VARIANT_ANSWERED: (
        "You answered this variant before, so this answer counts as practice. Load the "
        "question again for a fresh one."
    ),
    Answer.Notice.ANSWER_REVEALED: (
        "You looked at the answer before answering, so this review counts as Again."
    ),
}


def moment(value: datetime) -> str:
    """ISO 8601, UTC written as `Z`, as the rest of the API writes times."""
    return value.isoformat().replace("+00:00", "Z")


def notice_of(answer: Answer) -> dict[str, str] | None:
    if not answer.notice:
        return None
    return {"code": answer.notice, "message": NOTICES[Answer.Notice(answer.notice)]}


def verdict(question: Question, grade: Grade) -> dict[str, Any]:
    """The core of the feedback, as a synced review carries it."""
    mistake = grade.misconception
    return {
        "status": "self_graded" if question.kind == Question.Kind.FREE_TEXT else grade.status,
        "score": grade.score,
        "misconception": None
        if mistake is None
        else {"code": mistake.code, "message": mistake.message},
        "correct_answer": grade.correct_answer,
        "solution_steps": list(grade.solution_steps),
    }


def answer_result(
    *,
    answer: Answer,
    question: Question,
    choices: list[Choice],
    grade: Grade,
    order: tuple[int, ...] | None = None,
    review: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The response to an answer: the verdict, why, what was right, and how it counted; a
    choice question's verdicts come in the order its choices were shown."""
    notice = notice_of(answer)
    result: dict[str, Any] = {
        "answer_id": answer.pk,
        "question": question.pk,
        "question_version": answer.question_version,
        "mode": answer.mode,
        **verdict(question, grade),
        "feedback_html": feedback_html(question, grade, notice=notice["message"] if notice else ""),
        "value_read": None if grade.value_read is None else float(grade.value_read),
        "variant_seed": None if answer.variant_seed is None else str(answer.variant_seed),
        "notice": notice,
        "answered_at": moment(answer.created_at),
        "received_at": moment(answer.received_at),
        "review": review,
    }
    if question.model_answer_html:
        result["model_answer_html"] = question.model_answer_html
    if question.is_choice:
        result["choices"] = choice_verdicts(choices, order)
    if answer.covered_key_points is not None and question.in_bank:
        result["key_points"] = key_points_result(
            question.entry.key_points, answer.covered_key_points, answer.self_rating
        )
    return result


def key_points_result(points: list[str], covered: list[int], rating: str) -> dict[str, Any]:
    """How an interview answer's ticked key points rated it: which it covered and missed (by
    their places in the question's list), the rating they suggest and the one given."""
    kept = sorted(i for i in set(covered) if 0 <= i < len(points))
    return {
        "total": len(points),
        "covered": kept,
        "missed": [i for i in range(len(points)) if i not in kept],
        "suggested_rating": rating_from_key_points(len(kept), len(points)).label,
        "rating": rating or None,
    }


def past_answer_result(answer: Answer) -> dict[str, Any]:
    """A stored answer with its feedback, as it was given: the verdict stored, explained by
    the question (and its variant) as it reads now. The answer's question, choices and card
    are read by the caller."""
    question = answer.question
    choices = list(question.choices.all()) if question.is_choice else []
    grade = stored_grade(
        answer_key(question, seed=answer.variant_seed, choices=choices),
        status=answer.status,  # type: ignore[arg-type]
        score=answer.score,
        misconception=answer.misconception,
        value_read=answer.value_read,
    )
    return answer_result(
        answer=answer,
        question=question,
        choices=choices,
        grade=grade,
        review=_review_of(answer),
    )


def review_summary(
    *, card_id: int, after: CardState, interval_days: float, rating: Rating, leech: bool
) -> dict[str, Any]:
    """The schedule a review gave its card."""
    return {
        "card_id": card_id,
        "state": after.state,
        "due": moment(after.due),
        "interval_days": round(interval_days, 4),
        "rating": rating.label,
        "leech": leech,
    }


def _review_of(answer: Answer) -> dict[str, Any] | None:
    """The schedule a past review gave its card, from the card's state stored after it."""
    if answer.card_id is None or not answer.card_after or answer.rating is None:
        return None
    after = CardState.from_dict(answer.card_after)
    interval = (after.due - after.last_review).total_seconds() if after.last_review else 0.0
    return review_summary(
        card_id=answer.card_id,
        after=after,
        interval_days=interval / 86_400,
        rating=Rating(answer.rating),
        leech=bool(answer.card and answer.card.leech),
    )
