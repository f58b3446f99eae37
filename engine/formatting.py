"""Numbers as people read them: `8,000,000`, `0.7`, `−0.3`, `any value in (−2, −1]`."""

from __future__ import annotations

import math
from fractions import Fraction

from engine.answer_key import Interval

MINUS = "\u2212"
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def format_number(value: int | float | Fraction, *, places: int | None = None) -> str:
    """Format a number for a learner.

    Integers get thousands separators (`4,722,432`). Other numbers get `places` decimals when
    given, else four significant digits, with trailing zeros dropped (`0.7`, `1.234`). Very
    small numbers, and very large ones that are not integers, use powers of ten (`1.5 × 10⁻⁶`,
    `3.15 × 10²³`). Negative numbers use the minus sign.
    """
    if isinstance(value, bool):
        raise TypeError("a truth value is not a number")
    if isinstance(value, Fraction) and value.denominator == 1:
        value = value.numerator
    if isinstance(value, int):
        return _signed(f"{abs(value):,}", value < 0)
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"cannot format {x!r} for a learner")
    if x == 0:
        return "0"
    if places is None:
        magnitude = math.floor(math.log10(abs(x)))
        if magnitude < -4 or magnitude >= 15:
            return _powers_of_ten(x)
        places = min(max(3 - magnitude, 0), 12)
    text = f"{abs(x):,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text == "0":
        return "0"
    return _signed(text, x < 0)


def format_interval(interval: Interval, *, places: int | None = None) -> str:
    """`any value in (−2, −1]`, or `any value greater than 0` when one side is open-ended."""
    low, high = interval.low, interval.high
    if low is None and high is None:
        return "any value"
    if high is None:
        word = "at least" if interval.low_closed else "greater than"
        return f"any value {word} {format_number(_num(low), places=places)}"
    if low is None:
        word = "at most" if interval.high_closed else "less than"
        return f"any value {word} {format_number(high, places=places)}"
    left = "[" if interval.low_closed else "("
    right = "]" if interval.high_closed else ")"
    low_text = format_number(low, places=places)
    high_text = format_number(high, places=places)
    return f"any value in {left}{low_text}, {high_text}{right}"


def format_vector(values: list[float] | list[int], *, places: int | None = None) -> str:
    """`(0.8, 0.9, −0.3)`."""
    return "(" + ", ".join(format_number(v, places=places) for v in values) + ")"


def parenthesize(text: str) -> str:
    """Wrap a negative number in parentheses, so `0.5 × (−0.3)` reads at a glance."""
    return f"({text})" if text.startswith(MINUS) else text


def _num(value: float | None) -> float:
    assert value is not None
    return value


def _signed(text: str, negative: bool) -> str:
    return MINUS + text if negative else text


def _powers_of_ten(x: float) -> str:
    mantissa, exponent = f"{abs(x):.3e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    power = str(int(exponent)).translate(_SUPERSCRIPT)
    return _signed(f"{mantissa} × 10{power}", x < 0)
