"""The shape every question family shares: a batch of arrays, and one variant made readable.

A family draws its numbers for a whole batch (`draw`), computes answers and the values typical
mistakes give for the whole batch (`solve`), and only when one variant is shown turns its row
into plain data, a Markdown prompt and worked steps. `variant(seed)` is row 0 of a batch of one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from engine.answer_key import (
    Expected,
    Interval,
    Mistake,
    PartialCredit,
    Tolerance,
    expected_from_json,
    expected_to_json,
)
from engine.generators.draws import Draws, as_seeds
from engine.grading import format_expected

Floats = NDArray[np.float64]
Columns = dict[str, NDArray[Any]]
Bounds = tuple[bool, bool]
"""Whether an interval includes its low and its high end."""


@dataclass(frozen=True)
class MistakeSpec:
    """A mistake a family knows: its code, its message, and its bounds when it is a range."""

    code: str
    message: str
    bounds: Bounds | None = None


@dataclass(frozen=True, eq=False)
class Batch:
    """Many variants of one family as arrays, one row per seed.

    `answer` has shape `(n,)`, or `(n, 2)` (low, high) when the family's answer is a range.
    `mistakes` maps each code to the same shapes, NaN where the mistake would give the right
    answer (within the tolerance) or repeat an earlier mistake's value. Counts are exact in
    float64: every count a family makes is below 2**53.
    """

    family: str
    seeds: NDArray[np.uint64]
    data: Columns
    answer: Floats
    mistakes: dict[str, Floats]
    tolerance: Tolerance

    def __len__(self) -> int:
        return len(self.seeds)


@dataclass(frozen=True)
class Variant:
    """One question, ready to show and to grade.

    `prompt` (Markdown) and `data` (JSON-safe, under the names the prompt uses) may be sent to
    the learner before they answer; nothing else may: `public()` is exactly that part.
    `seed` is None for a variant posed from given numbers (`Family.pose`).
    """

    family: str
    seed: int | None
    prompt: str
    data: dict[str, Any]
    answer: Expected
    tolerance: Tolerance
    correct_answer: str
    solution_steps: list[str] = field(default_factory=list)
    mistakes: list[Mistake] = field(default_factory=list)
    partial: PartialCredit | None = None

    def public(self) -> dict[str, Any]:
        """What may be shown before the answer: family, seed, prompt and data."""
        return {"family": self.family, "seed": self.seed, "prompt": self.prompt, "data": self.data}

    def to_dict(self) -> dict[str, Any]:
        """Everything, answer included, as JSON-safe values."""
        return {
            **self.public(),
            "answer": expected_to_json(self.answer),
            "tolerance": self.tolerance.to_dict(),
            "correct_answer": self.correct_answer,
            "solution_steps": list(self.solution_steps),
            "mistakes": [m.to_dict() for m in self.mistakes],
            "partial": None if self.partial is None else self.partial.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Variant:
        partial = data.get("partial")
        return cls(
            family=str(data["family"]),
            seed=None if data["seed"] is None else int(data["seed"]),
            prompt=str(data["prompt"]),
            data=dict(data["data"]),
            answer=expected_from_json(data["answer"]),
            tolerance=Tolerance.from_dict(data["tolerance"]),
            correct_answer=str(data["correct_answer"]),
            solution_steps=[str(s) for s in data["solution_steps"]],
            mistakes=[Mistake.from_dict(m) for m in data["mistakes"]],
            partial=None if partial is None else PartialCredit.from_dict(partial),
        )


class Family(ABC):
    """A kind of generated question. Subclasses fill in the class attributes and six methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    tolerance: ClassVar[Tolerance]
    mistake_specs: ClassVar[tuple[MistakeSpec, ...]]
    answer_bounds: ClassVar[Bounds | None] = None  # set when the answer is a range
    partial: ClassVar[PartialCredit | None] = None
    counts: ClassVar[bool] = False  # answers are exact integer counts
    places: ClassVar[int | None] = None  # decimals shown in the correct answer

    @abstractmethod
    def draw(self, draws: Draws) -> Columns:
        """The numbers of every variant in the batch, as arrays with one row per seed."""

    @abstractmethod
    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        """The answers and each mistake's values, vectorized; NaN where a mistake does not apply."""

    @abstractmethod
    def row(self, data: Columns, i: int) -> dict[str, Any]:
        """Row `i` as JSON-safe data under the names the prompt uses."""

    @abstractmethod
    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        """The inverse of `row`: arrays from plain data (for `pose`)."""

    @abstractmethod
    def prompt(self, row: Mapping[str, Any]) -> str:
        """The question in Markdown. It never contains the answer or a mistake's value."""

    @abstractmethod
    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        """The worked solution, one step per line."""

    def generate(self, seeds: ArrayLike) -> Batch:
        """A batch of variants, one per seed (integers from 0 to 2**63 - 1)."""
        checked = as_seeds(seeds)
        return self._batch(checked, self.draw(Draws(checked, self.name)))

    def variant(self, seed: int) -> Variant:
        """The variant for one seed: row 0 of a batch of one."""
        return self.materialize(self.generate([seed]), 0)

    def pose(self, data: Mapping[str, Any]) -> Variant:
        """A variant from given numbers, such as a worked example from a lesson.

        `ValueError` when the numbers don't fit the family (a missing name, a wrong length).
        """
        try:
            columns = self.columns([data])
        except (KeyError, TypeError, IndexError) as error:
            raise ValueError(f"{self.name} can't pose a question from {dict(data)!r}") from error
        batch = self._batch(np.zeros(1, dtype=np.uint64), columns)
        return self.materialize(batch, 0, seeded=False)

    def materialize(self, batch: Batch, i: int, *, seeded: bool = True) -> Variant:
        """Row `i` of a batch as a `Variant`."""
        row = self.row(batch.data, i)
        answer = self._expected(batch.answer[i], self.answer_bounds)
        mistakes = [
            Mistake(spec.code, spec.message, self._expected(values[i], spec.bounds))
            for spec in self.mistake_specs
            if not np.isnan((values := batch.mistakes[spec.code])[i]).any()
        ]
        return Variant(
            family=self.name,
            seed=int(batch.seeds[i]) if seeded else None,
            prompt=self.prompt(row),
            data=row,
            answer=answer,
            tolerance=self.tolerance,
            correct_answer=format_expected(answer, places=self.places),
            solution_steps=self.steps(row, answer),
            mistakes=mistakes,
            partial=self.partial,
        )

    def _batch(self, seeds: NDArray[np.uint64], data: Columns) -> Batch:
        answer, mistakes = self.solve(data)
        if self.answer_bounds is None:
            mistakes = distinct(
                answer, mistakes, [s.code for s in self.mistake_specs], self.tolerance
            )
        return Batch(self.name, seeds, data, answer, mistakes, self.tolerance)

    def _expected(self, value: Floats, bounds: Bounds | None) -> Expected:
        if bounds is not None:
            low, high = (float(v) for v in value)
            return Interval(
                None if np.isinf(low) else low, None if np.isinf(high) else high, *bounds
            )
        if self.counts:
            return int(value)
        return float(value)


def clean(values: NDArray[Any]) -> Floats:
    """Round to 9 decimals: sums of decimals come out as the decimal (1.7 - 1 gives 0.7)."""
    return np.asarray(np.rint(np.asarray(values, dtype=np.float64) * 1e9) / 1e9, dtype=np.float64)


def significant(values: NDArray[Any], figures: int = 9) -> Floats:
    """Round to significant figures: for values graded by their figures, however small, where
    rounding to decimals would turn a weight of 10⁻¹⁰ into 0."""
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore"):
        magnitude = np.floor(np.log10(np.abs(x)))
    scale = 10.0 ** np.where(np.isfinite(magnitude), figures - 1 - magnitude, 0)
    return np.asarray(np.rint(x * scale) / scale, dtype=np.float64)


def close(a: Floats, b: Floats, tolerance: Tolerance) -> NDArray[np.bool_]:
    """Where `a` is within the tolerance of `b`, with a hair of slack so grading never disagrees."""
    gap = np.abs(a - b)
    if tolerance.kind == "exact":
        return np.asarray(gap == 0)
    allowed = tolerance.amount * (np.abs(b) if tolerance.kind == "relative" else 1.0)
    return np.asarray(gap <= allowed * (1 + 1e-6) + 1e-12)


def distinct(
    answer: Floats, mistakes: Mapping[str, Floats], order: Sequence[str], tolerance: Tolerance
) -> dict[str, Floats]:
    """Blank out (NaN) a mistake's value where it is right or repeats an earlier mistake."""
    kept: dict[str, Floats] = {}
    for code in order:
        values = np.array(mistakes[code], dtype=np.float64)
        same = close(values, answer, tolerance)
        for earlier in kept.values():
            same |= close(values, earlier, tolerance) | close(earlier, values, tolerance)
        values[same] = np.nan
        kept[code] = values
    return kept


def floats(values: NDArray[Any]) -> list[float]:
    """Plain Python floats, cleaned of binary noise."""
    return [float(v) for v in clean(values)]


def pad(rows: Sequence[Sequence[float]], width: int | None = None) -> Floats:
    """Ragged rows as one zero-padded array (zeros add nothing to a dot product)."""
    size = max([len(r) for r in rows] + [width or 0])
    out = np.zeros((len(rows), size), dtype=np.float64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out
