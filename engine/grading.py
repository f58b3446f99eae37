"""Grading: a read number against the answer, then against the values typical mistakes give.

Order, for a numeric answer: the answer (exactly for counts, within the tolerance otherwise,
inside it for an interval); then the mistakes; then the question's partial-credit band, if it
has one; then, for an exact count, whether the value is that count rounded. A mistake is named
only when the value matches it and no other mistake, and lies closer to it than to the answer:
a name that might be wrong teaches the wrong lesson, so an unclear case gets none. A known
mistake is checked before partial credit so that a value a mistake produces is named as that
mistake even when it lands near the answer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from engine.answer_key import (
    Expected,
    Interval,
    Mistake,
    PartialCredit,
    Tolerance,
    exact_fraction,
    matches,
)
from engine.answers import Number, Refusal, read_number
from engine.formatting import format_interval, format_number

if TYPE_CHECKING:
    from engine.generators.base import Variant

Status = Literal["correct", "incorrect", "partial"]


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer.

    `misconception` is the mistake the value matches, if any; `correct_answer` is formatted for
    people (`8,000,000`, `any value in (−2, −1]`); `value_read` is the number that was graded
    (None for choice questions). `rounded` marks a count given rounded (`4.7M` for 4,722,432):
    still not the exact count asked for, but not a wrong method either.
    """

    status: Status
    score: float
    misconception: Mistake | None
    correct_answer: str
    solution_steps: list[str] = field(default_factory=list)
    value_read: Fraction | None = None
    rounded: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; the misconception is `{code, message}` as the API shows it."""
        mistake = self.misconception
        return {
            "status": self.status,
            "score": self.score,
            "misconception": None
            if mistake is None
            else {"code": mistake.code, "message": mistake.message},
            "correct_answer": self.correct_answer,
            "solution_steps": list(self.solution_steps),
            "value_read": None if self.value_read is None else float(self.value_read),
        }


def format_expected(answer: Expected, *, places: int | None = None) -> str:
    """The right answer as a learner reads it."""
    if isinstance(answer, Interval):
        return format_interval(answer, places=places)
    return format_number(answer, places=places)


def grade_numeric(
    value: Number | Fraction | int | float,
    *,
    answer: Expected,
    tolerance: Tolerance,
    mistakes: Sequence[Mistake] = (),
    partial: PartialCredit | None = None,
    correct_answer: str | None = None,
    solution_steps: Sequence[str] = (),
    percent: bool = False,
) -> Grade:
    """Grade one read number (see the module docstring for the order of checks).

    A point mistake matches within the question's tolerance around the mistake's value; an
    interval mistake matches anywhere inside it. With `percent`, the answer, its tolerance and
    the mistakes are in percent, and a value typed with a percent sign is read in percent too,
    so `66.2%` and `66.2` are the same answer.
    """
    read = _as_fraction(value)
    if percent and isinstance(value, Number) and value.percent:
        read *= 100
    shown = correct_answer if correct_answer is not None else format_expected(answer)
    if percent and correct_answer is None and not isinstance(answer, Interval):
        shown += "%"
    steps = list(solution_steps)

    def verdict(status: Status, score: float, mistake: Mistake | None = None) -> Grade:
        return Grade(status, score, mistake, shown, steps, read)

    if matches(read, answer, tolerance):
        return verdict("correct", 1.0)
    if mistake := named_mistake(read, answer=answer, tolerance=tolerance, mistakes=mistakes):
        return verdict("incorrect", 0.0, mistake)
    if (
        partial is not None
        and not isinstance(answer, Interval)
        and partial.tolerance.accepts(read, answer)
    ):
        return verdict("partial", partial.score)
    if tolerance.kind == "exact" and rounded_count(read, answer):
        return Grade("incorrect", 0.0, None, shown, steps, read, rounded=True)
    return verdict("incorrect", 0.0)


def named_mistake(
    value: Fraction, *, answer: Expected, tolerance: Tolerance, mistakes: Sequence[Mistake]
) -> Mistake | None:
    """The one mistake a wrong value can be put down to, or None when it is not clear.

    The value must match exactly one mistake (two that it matches cannot be told apart) and lie
    closer to that mistake's value than to the answer, or on it exactly.
    """
    hits = [mistake for mistake in mistakes if matches(value, mistake.value, tolerance)]
    if len(hits) != 1:
        return None
    gap = _distance(value, hits[0].value)
    return hits[0] if gap == 0 or gap < _distance(value, answer) else None


def rounded_count(value: Fraction, answer: Expected) -> bool:
    """Whether `value` is the count `answer` rounded to two or more significant figures."""
    if isinstance(answer, Interval | float) or value.denominator != 1 or value == answer:
        return False
    size = abs(answer)
    for places in range(1, len(str(size)) - 1):
        step = 10**places
        if value == (size + step // 2) // step * step * (1 if answer >= 0 else -1):
            return True
    return False


def _distance(value: Fraction, target: Expected) -> Fraction:
    """How far a value lies from a target: 0 inside a range, else from its nearer end."""
    if not isinstance(target, Interval):
        return abs(value - exact_fraction(target))
    if target.low is not None and value < (low := exact_fraction(target.low)):
        return low - value
    if target.high is not None and value > (high := exact_fraction(target.high)):
        return value - high
    return Fraction(0)


def grade(variant: Variant, typed_text: str) -> Grade | Refusal:
    """Read `typed_text` and grade it against a generated variant.

    Text that can't be read is not graded: the reader's `Refusal` comes back instead.
    """
    read = read_number(typed_text)
    if isinstance(read, Refusal):
        return read
    return grade_numeric(
        read,
        answer=variant.answer,
        tolerance=variant.tolerance,
        mistakes=variant.mistakes,
        partial=variant.partial,
        correct_answer=variant.correct_answer,
        solution_steps=variant.solution_steps,
    )


def grade_choices(
    *,
    picked: Collection[int],
    correct: Collection[int],
    choices: Collection[int],
    multiple: bool,
    correct_answer: str = "",
    solution_steps: Sequence[str] = (),
) -> Grade:
    """Grade a choice question by choice ids.

    Single choice: exactly one pick is required (`ValueError` otherwise); right scores 1, wrong 0.
    Multiple choice: score = (right picks - wrong picks) / number of right choices, at least 0.
    A score of 1 (every right choice, no wrong one) is correct; above 0, partial; 0, incorrect.
    Picks outside `choices` raise `ValueError`.
    """
    chosen, right = set(picked), set(correct)
    if not right or not right <= set(choices):
        raise ValueError("the right choices must be among the question's choices")
    if unknown := chosen - set(choices):
        raise ValueError(f"unknown choices: {sorted(unknown)}")
    if not multiple and (len(chosen) != 1 or len(right) != 1):
        raise ValueError("a single-choice question takes exactly one pick")
    hits, misses = len(chosen & right), len(chosen - right)
    score = max(0.0, (hits - misses) / len(right))
    status: Status = "correct" if score == 1.0 else "partial" if score > 0 else "incorrect"
    return Grade(status, score, None, correct_answer, list(solution_steps), None)


def _as_fraction(value: Number | Fraction | int | float) -> Fraction:
    if isinstance(value, Number):
        return value.value
    return exact_fraction(value)
