"""Whether a learner's result for one case is right, and if not, a message that helps.

What is compared: how many outputs, then each one's kind (numbers, not text), shape, finiteness
and values, within `atol + rtol × |expected|`. A message says what is wrong and where (the
largest error and its index) but, for a hidden case, never the expected value itself; for a
visible example it may.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.formatting import format_number


@dataclass(frozen=True)
class Checked:
    passed: bool
    message: str


def _where(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]" if index else "the value"


def _number(value: float) -> str:
    if not np.isfinite(value):
        return str(value)
    return format_number(float(f"{value:.6g}"))


def check(
    got: list[np.ndarray[Any, Any]],
    expected: list[np.ndarray[Any, Any]],
    *,
    rtol: float,
    atol: float,
    exact: bool = False,
    names: tuple[str, ...] = ("result",),
    reveal: bool = False,
) -> Checked:
    """`got` against `expected`, output by output; the first thing wrong is the message."""
    if len(got) != len(expected):
        wanted = f"{len(expected)} ({', '.join(names)})" if len(expected) > 1 else "one"
        return Checked(False, f"returned {len(got)} values; expected {wanted}")
    for position, (mine, right) in enumerate(zip(got, expected, strict=True)):
        label = ""
        if len(expected) > 1:
            label = names[position] if len(names) > 1 else f"{names[0]}[{position}]"
        problem = _compare(mine, right, rtol=rtol, atol=atol, exact=exact, reveal=reveal)
        if problem:
            return Checked(False, f"{label}: {problem}" if label else problem)
    return Checked(True, "passed")


def _compare(
    mine: np.ndarray[Any, Any],
    right: np.ndarray[Any, Any],
    *,
    rtol: float,
    atol: float,
    exact: bool,
    reveal: bool,
) -> str:
    if mine.dtype.kind not in "biuf":
        kind = "text" if mine.dtype.kind in "US" else f"values of type {mine.dtype}"
        return f"returned {kind}, not numbers"
    if mine.shape != right.shape:
        return f"wrong shape: {mine.shape} where {right.shape} is expected"
    if mine.size == 0:
        return ""
    mine_f, right_f = mine.astype(np.float64), right.astype(np.float64)
    bad = ~np.isfinite(mine_f) & np.isfinite(right_f)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        what = "NaN" if np.isnan(mine_f[index]) else "infinity"
        return f"{what} at {_where(index)} (overflow? subtract the maximum first)"
    both_inf = np.isinf(right_f) & (mine_f == right_f)
    with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity
        error = np.where(both_inf, 0.0, np.abs(mine_f - right_f))
    error = np.where(np.isnan(error), np.inf, error)
    allowed = 0.0 if exact else atol + rtol * np.abs(np.where(np.isinf(right_f), 0, right_f))
    wrong = error > allowed
    if not wrong.any():
        return ""
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(error)), error.shape))
    count = int(wrong.sum())
    spread = f"{count} of {mine.size} values" if mine.size > 1 else "the value"
    if exact:
        message = f"{spread} differ; at {_where(index)} you returned {_number(mine_f[index])}"
    else:
        message = f"{spread} off; the largest error is {_number(error[index])} at {_where(index)}"
    if reveal:
        message += f", where {_number(right_f[index])} is expected"
    return message
