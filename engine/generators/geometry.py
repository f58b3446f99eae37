"""High-dimensional geometry: random directions are nearly perpendicular."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.answer_key import Expected, PartialCredit, Tolerance
from engine.formatting import format_number
from engine.generators.base import Columns, Family, Floats, MistakeSpec, clean
from engine.generators.draws import Draws

DIMS = (16, 25, 64, 100, 256, 400, 512, 768, 1000, 1024, 4096, 10_000, 12_288)
MEASURES = ("cosine", "degrees")
DEGREES_PER_RADIAN = 180 / math.pi


class NearOrthogonal(Family):
    name = "near_orthogonal"
    title = "How far from perpendicular random directions are"
    tolerance = Tolerance.relative(0.1)  # an estimate: about 1/√N is what is asked
    partial = PartialCredit(Tolerance.relative(0.3), 0.5)
    mistake_specs = (
        MistakeSpec(
            "one_over_n", "The variance of the cosine is 1/N; its spread is the square root, 1/√N."
        ),
        MistakeSpec("radians", "That is in radians; one radian is about 57.3°."),
        MistakeSpec(
            "degrees", "The cosine has no unit: its spread is 1/√N, not an angle in degrees."
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        return {"dims": draws.pick(DIMS), "measure": draws.integers(0, 1)}

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        n = data["dims"].astype(np.float64)
        degrees = data["measure"] == 1
        unit = np.where(degrees, DEGREES_PER_RADIAN, 1.0)
        nan = np.full_like(n, np.nan)
        return clean(unit / np.sqrt(n)), {
            "one_over_n": clean(unit / n),
            "radians": np.where(degrees, clean(1 / np.sqrt(n)), nan),
            "degrees": np.where(degrees, nan, clean(DEGREES_PER_RADIAN / np.sqrt(n))),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {"dims": int(data["dims"][i]), "measure": MEASURES[int(data["measure"][i])]}

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        if any(int(r["dims"]) < 2 or r["measure"] not in MEASURES for r in rows):
            raise ValueError("dims must be at least 2 and measure one of cosine, degrees")
        return {
            "dims": np.array([int(r["dims"]) for r in rows], dtype=np.int64),
            "measure": np.array([MEASURES.index(r["measure"]) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        n = format_number(row["dims"])
        what = (
            "the cosine of the angle between them"
            if row["measure"] == "cosine"
            else "the angle between them, in degrees (it is close to 90°)"
        )
        return (
            f"Pick two directions at random in {n}-dimensional space, every direction equally"
            f" likely. About how large is the typical spread (the standard deviation) of {what}?"
            " Within 10% counts."
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        n = row["dims"]
        spread = 1 / math.sqrt(n)
        lines = [
            "The cosine of two unit vectors is their dot product,"
            " a sum of N products of coordinates.",
            "Its mean is 0 and its variance is exactly 1/N, so its spread is"
            f" 1/√N = 1/√{format_number(n)} ≈ {format_number(spread)}.",
        ]
        if row["measure"] == "degrees":
            lines.append(
                "Near 90° the angle moves one radian per unit of cosine, so its spread is about"
                f" {format_number(spread)} rad × 57.3°/rad"
                f" ≈ {format_number(spread * DEGREES_PER_RADIAN)}°."
            )
        return lines
