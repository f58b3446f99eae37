"""What counts as right for a numeric question: tolerances, intervals, mistakes, partial credit.

Every comparison runs on exact fractions. A float target is taken as the decimal it prints as
(`0.7` is 7/10), so typed `0.7` equals an answer computed as 0.7 with no binary rounding slack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

ToleranceKind = Literal["exact", "absolute", "relative"]


def exact_fraction(value: int | float | Fraction) -> Fraction:
    """The number as a person writes it: the float 0.1 is 1/10, not its binary neighbour."""
    if isinstance(value, bool):
        raise TypeError("a truth value is not a number")
    if isinstance(value, float):
        return _written(value)
    return Fraction(value)


@lru_cache(maxsize=1024)
def _written(value: float) -> Fraction:
    # Grading one answer compares the same few floats many times; reading a float's decimal
    # digits is the costly part, so the latest ones are kept.
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite number")
    return Fraction(repr(value))


@dataclass(frozen=True)
class Tolerance:
    """How far from the target a typed value may be: `exact`, `absolute` or `relative`."""

    kind: ToleranceKind
    amount: float = 0.0

    @classmethod
    def exact(cls) -> Tolerance:
        return cls("exact", 0.0)

    @classmethod
    def absolute(cls, amount: float) -> Tolerance:
        return cls("absolute", amount)

    @classmethod
    def relative(cls, amount: float) -> Tolerance:
        return cls("relative", amount)

    def accepts(self, value: Fraction, target: int | float) -> bool:
        """Whether `value` is within this tolerance of `target` (both ends inclusive)."""
        goal = exact_fraction(target)
        if self.kind == "exact":
            return value == goal
        allowed = exact_fraction(self.amount)
        if self.kind == "relative":
            allowed *= abs(goal)
        return abs(value - goal) <= allowed

    def describe(self) -> str:
        if self.kind == "exact":
            return "exactly"
        if self.kind == "relative":
            return f"within {self.amount * 100:g}%"
        return f"within {self.amount:g}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "amount": self.amount}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tolerance:
        kind = data["kind"]
        if kind not in ("exact", "absolute", "relative"):
            raise ValueError(f"unknown tolerance kind {kind!r}")
        return cls(kind, float(data["amount"]))


@dataclass(frozen=True)
class Interval:
    """A range of accepted values; `None` for a side with no bound."""

    low: float | None
    high: float | None
    low_closed: bool = False
    high_closed: bool = False

    def contains(self, value: Fraction) -> bool:
        if self.low is not None:
            low = exact_fraction(self.low)
            if value < low or (value == low and not self.low_closed):
                return False
        if self.high is not None:
            high = exact_fraction(self.high)
            if value > high or (value == high and not self.high_closed):
                return False
        return True

    def overlaps(self, other: Interval) -> bool:
        """Whether some value lies in both intervals."""
        low, low_closed = _tighter(self.low, self.low_closed, other.low, other.low_closed, max)
        high, high_closed = _tighter(
            self.high, self.high_closed, other.high, other.high_closed, min
        )
        if low is None or high is None:
            return True
        if low != high:
            return low < high
        return low_closed and high_closed

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "low_closed": self.low_closed,
            "high_closed": self.high_closed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Interval:
        low, high = data["low"], data["high"]
        return cls(
            None if low is None else float(low),
            None if high is None else float(high),
            bool(data["low_closed"]),
            bool(data["high_closed"]),
        )


Expected = int | float | Interval
"""An answer or a mistake's value: an exact count, a number, or a range."""


def expected_to_json(value: Expected) -> Any:
    return value.to_dict() if isinstance(value, Interval) else value


def expected_from_json(data: Any) -> Expected:
    if isinstance(data, dict):
        return Interval.from_dict(data)
    if isinstance(data, bool) or not isinstance(data, int | float):
        raise ValueError(f"{data!r} is not an answer value")
    return data


def matches(value: Fraction, target: Expected, tolerance: Tolerance) -> bool:
    """Whether a typed value hits a target: inside it for a range, within tolerance otherwise."""
    if isinstance(target, Interval):
        return target.contains(value)
    return tolerance.accepts(value, target)


@dataclass(frozen=True)
class Mistake:
    """A typical mistake: a stable `code`, a one-line `message`, and the value it produces."""

    code: str
    message: str
    value: Expected

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "value": expected_to_json(self.value)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Mistake:
        return cls(str(data["code"]), str(data["message"]), expected_from_json(data["value"]))


@dataclass(frozen=True)
class PartialCredit:
    """A wider tolerance around the answer that earns `score` (between 0 and 1)."""

    tolerance: Tolerance
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {"tolerance": self.tolerance.to_dict(), "score": self.score}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PartialCredit:
        return cls(Tolerance.from_dict(data["tolerance"]), float(data["score"]))


def _tighter(
    a: float | None, a_closed: bool, b: float | None, b_closed: bool, pick: Any
) -> tuple[Fraction | None, bool]:
    if a is None:
        return (None if b is None else exact_fraction(b)), b_closed
    if b is None:
        return exact_fraction(a), a_closed
    fa, fb = exact_fraction(a), exact_fraction(b)
    if fa == fb:
        return fa, a_closed and b_closed
    return (fa, a_closed) if pick(fa, fb) == fa else (fb, b_closed)
