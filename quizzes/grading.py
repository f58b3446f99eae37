"""Grading one submission to a question: what the learner sent, read and judged by the engine.

Pure of learner state: the verdict depends on the question, its variant and the submission
only. Anything unreadable or missing is refused (`AnswerRefused`) before anything is stored.
What counts for review (a token seen before, an answer looked at first) is decided by
`reviews`, which knows the learner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from django.utils.html import escape

from engine import (
    Grade,
    Interval,
    Mistake,
    Refusal,
    Tolerance,
    grade,
    grade_choices,
    grade_numeric,
    read_number,
)
from engine.answer_key import Expected, expected_from_json
from engine.grading import Status, format_expected, rounded_count
from quizzes import errors
from quizzes.content import mistakes_of
from quizzes.models import Choice, Question
from quizzes.variants import Served, served_variant, variant_for

SELF_RATING_SCORES = {"again": 0.0, "hard": 0.5, "good": 1.0, "easy": 1.0}


@dataclass(frozen=True)
class Graded:
    """The verdict, the variant's seed (generated questions) and the number read, exactly;
    what the token said was served, if one came; and whether the learner's own rating decides
    (free text answered with something)."""

    grade: Grade
    seed: int | None
    value_read: str
    served: Served | None = None
    self_rated: bool = False


def grade_submission(
    *,
    user_id: int,
    question: Question,
    choices: list[Choice],
    response: str | None = None,
    choice_ids: Sequence[int] | None = None,
    variant: str | None = None,
    self_rating: str | None = None,
    by_key_points: bool = False,
    code_score: float | None = None,
) -> Graded:
    """Grades what was sent for the question; `choices` are its choices, in order (none for
    other kinds). A generated question's variant token must be one issued to `user_id`. An
    interview question rated `by_key_points` may have been answered out loud: nothing typed
    is then not nothing said, and the key points ticked rate it."""
    if question.kind == Question.Kind.CODE:
        # Graded by its hidden tests in the sandbox (reviews.code), never by a typed answer.
        if code_score is None:
            raise errors.AnswerRefused(
                422,
                None,
                "submit_code",
                "A coding question is answered by submitting code: POST "
                f"/api/v1/code/questions/{question.pk}/submissions/.",
            )
        status: Status = (
            "correct" if code_score >= 1 else "partial" if code_score > 0 else "incorrect"
        )
        verdict = Grade(status=status, score=code_score, misconception=None, correct_answer="")
        return Graded(verdict, None, "")

    if question.kind == Question.Kind.FREE_TEXT:
        if not self_rating:
            raise errors.invalid_field(
                "self_rating",
                "required",
                "Rate your own answer (again, hard, good or easy) after reading the model answer.",
            )
        spoken = by_key_points and question.in_bank
        if (response is None or not response.strip()) and not spoken:
            # Nothing written recalls nothing, whatever the rating says.
            blank = Grade(status="incorrect", score=0.0, misconception=None, correct_answer="")
            return Graded(blank, None, "")
        score = SELF_RATING_SCORES[self_rating]
        status = "correct" if score == 1 else "partial" if score > 0 else "incorrect"
        verdict = Grade(status=status, score=score, misconception=None, correct_answer="")
        return Graded(verdict, None, "", self_rated=True)

    if question.is_choice:
        served = served_for(question, token=variant, user_id=user_id)
        return Graded(_grade_choices(question, choices, choice_ids), None, "", served)

    if response is None or response == "":
        raise errors.invalid_field("response", "required", "Type your answer as a number.")

    if question.is_generated:
        served = served_for(question, token=variant, user_id=user_id)
        assert served is not None
        assert served.seed is not None
        graded = grade(variant_for(question, served.seed), response)
        if isinstance(graded, Refusal):
            raise errors.unreadable_number(graded.message)
        return Graded(graded, served.seed, str(graded.value_read), served)

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


def served_for(question: Question, *, token: str | None, user_id: int) -> Served | None:
    """What the variant token says was served for the question: required for a generated
    question (its seed), optional for a choice question (the order of its choices); other
    kinds have no variant and ignore it."""
    if question.is_generated:
        if not token:
            raise errors.invalid_field(
                "variant", "required", "Send the variant token the question came with."
            )
        served = served_variant(token=token, user_id=user_id, question_id=question.pk)
        if served.seed is None:
            raise errors.invalid_variant("This token was not issued for a variant.")
        return served
    if question.is_choice and token:
        served = served_variant(token=token, user_id=user_id, question_id=question.pk)
        if served.order is None:
            raise errors.invalid_variant("This token was not issued for these choices.")
        return served
    return None


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


@dataclass(frozen=True)
class AnswerKey:
    """What is right for a question (and a generated one's variant), and the mistakes named.
    `exact` holds a count that must be given exactly, so a rounded one can be told apart."""

    correct_answer: str
    solution_steps: list[str] = field(default_factory=list)
    mistakes: list[Mistake] = field(default_factory=list)
    exact: Expected | None = None


def answer_key(question: Question, *, seed: int | None, choices: list[Choice]) -> AnswerKey:
    """The right answer as grading shows it after an answer, for a reveal or a past answer."""
    if question.kind in (Question.Kind.FREE_TEXT, Question.Kind.CODE):
        return AnswerKey("")
    if question.is_choice:
        return AnswerKey("; ".join(c.text_markdown for c in choices if c.is_correct))
    if question.is_generated:
        if seed is None:
            return AnswerKey("")
        variant = variant_for(question, seed)
        exact = variant.answer if variant.tolerance.kind == "exact" else None
        return AnswerKey(
            variant.correct_answer, list(variant.solution_steps), variant.mistakes, exact
        )
    answer = expected_from_json(question.answer)
    shown = format_expected(answer)
    if question.unit == Question.Unit.PERCENT and not isinstance(answer, Interval):
        shown += "%"  # as grading shows it
    tolerance = Tolerance.from_dict(question.tolerance) if question.tolerance else Tolerance.exact()
    return AnswerKey(
        shown,
        list(question.solution_steps),
        mistakes_of(question),
        answer if tolerance.kind == "exact" else None,
    )


def stored_grade(
    key: AnswerKey, *, status: Status, score: float, misconception: str, value_read: str
) -> Grade:
    """A verdict given before, rebuilt from what was stored and the question's answer key."""
    named = next((m for m in key.mistakes if m.code == misconception), None)
    if named is None and misconception:
        named = Mistake(misconception, "", 0)
    value = Fraction(value_read) if value_read else None
    return Grade(
        status=status,
        score=score,
        misconception=named,
        correct_answer=key.correct_answer,
        solution_steps=list(key.solution_steps),
        value_read=value,
        rounded=status == "incorrect"
        and named is None
        and value is not None
        and key.exact is not None
        and rounded_count(value, key.exact),
    )


def feedback_html(question: Question, grade: Grade, *, notice: str = "") -> str:
    """The verdict in a sentence, naming the mistake, then the question's explanation; a
    `notice` (why the answer counted as it did) stands in for the verdict's sentence."""
    if notice:
        lead = notice
    elif question.kind == Question.Kind.FREE_TEXT:
        lead = "Compare your answer with the model answer below."
    elif question.kind == Question.Kind.CODE:
        lead = {
            "correct": "Every test passed.",
            "partial": f"{round(grade.score * 100)}% of the tests passed.",
        }.get(grade.status, "No test passed.")
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


def choice_verdicts(
    choices: list[Choice], order: Sequence[int] | None = None
) -> list[dict[str, object]]:
    """Which choices were right, and why: sent only once the question is answered, in the
    order they were shown (the bank's order when unknown)."""
    place = {pk: i for i, pk in enumerate(order or ())}
    shown = sorted(choices, key=lambda c: (place.get(c.pk, len(place)), c.position))
    return [
        {"id": c.pk, "correct": c.is_correct, "explanation_html": c.explanation_html} for c in shown
    ]
