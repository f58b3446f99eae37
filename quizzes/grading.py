"""Grading one submission to a question: what the learner sent, read and judged by the engine.

Pure of learner state: the verdict depends on the question, its variant and the submission
only. Anything unreadable or missing is refused (`AnswerRefused`) before anything is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape

from engine import (
    Grade,
    Refusal,
    Tolerance,
    grade,
    grade_choices,
    grade_numeric,
    read_number,
)
from engine.answer_key import expected_from_json
from engine.grading import Status
from quizzes import errors
from quizzes.content import mistakes_of
from quizzes.models import Choice, Question
from quizzes.variants import variant_for, variant_seed

SELF_RATING_SCORES = {"again": 0.0, "hard": 0.5, "good": 1.0, "easy": 1.0}


@dataclass(frozen=True)
class Graded:
    """The verdict, the variant's seed (generated questions) and the number read, exactly."""

    grade: Grade
    seed: int | None
    value_read: str


def grade_submission(
    *,
    user_id: int,
    question: Question,
    choices: list[Choice],
    response: str | None = None,
    choice_ids: Sequence[int] | None = None,
    variant: str | None = None,
    self_rating: str | None = None,
) -> Graded:
    """Grades what was sent for the question; `choices` are its choices, in order (none for
    other kinds). A generated question's variant token must be one issued to `user_id`."""
    if question.kind == Question.Kind.FREE_TEXT:
        if not self_rating:
            raise errors.invalid_field(
                "self_rating",
                "required",
                "Rate your own answer (again, hard, good or easy) after reading the model answer.",
            )
        score = SELF_RATING_SCORES[self_rating]
        status: Status = "correct" if score == 1 else "partial" if score > 0 else "incorrect"
        verdict = Grade(status=status, score=score, misconception=None, correct_answer="")
        return Graded(verdict, None, "")

    if question.is_choice:
        return Graded(_grade_choices(question, choices, choice_ids), None, "")

    if response is None or response == "":
        raise errors.invalid_field("response", "required", "Type your answer as a number.")

    if question.is_generated:
        if not variant:
            raise errors.invalid_field(
                "variant", "required", "Send the variant token the question came with."
            )
        seed = variant_seed(token=variant, user_id=user_id, question_id=question.pk)
        graded = grade(variant_for(question, seed), response)
        if isinstance(graded, Refusal):
            raise errors.unreadable_number(graded.message)
        return Graded(graded, seed, str(graded.value_read))

    read = read_number(response)
    if isinstance(read, Refusal):
        raise errors.unreadable_number(read.message)
    answer = expected_from_json(question.answer)
    tolerance = Tolerance.from_dict(question.tolerance) if question.tolerance else Tolerance.exact()
    verdict = grade_numeric(
        read,
        answer=answer,
        tolerance=tolerance,
        mistakes=mistakes_of(question),
        solution_steps=question.solution_steps,
        percent=question.unit == Question.Unit.PERCENT,
    )
    return Graded(verdict, None, str(read.value))


def _grade_choices(
    question: Question, choices: list[Choice], choice_ids: Sequence[int] | None
) -> Grade:
    picked = set(choice_ids or [])
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


def feedback_html(question: Question, grade: Grade) -> str:
    """The verdict in a sentence, naming the mistake, then the question's explanation."""
    if question.kind == Question.Kind.FREE_TEXT:
        lead = "Compare your answer with the model answer below."
    elif grade.status == "correct":
        lead = "Right."
    elif grade.status == "partial":
        lead = "Partly right."
    elif grade.misconception is not None:
        lead = f"Not quite: {grade.misconception.message}"
    elif grade.rounded:
        lead = f"Right, but this asks for the exact count: {grade.correct_answer}."
    else:
        lead = "Not quite."
    return f"<p>{escape(lead)}</p>" + question.explanation_html


def choice_verdicts(choices: list[Choice]) -> list[dict[str, object]]:
    """Which choices were right, and why: sent only once the question is answered."""
    return [
        {"id": c.pk, "correct": c.is_correct, "explanation_html": c.explanation_html}
        for c in choices
    ]
