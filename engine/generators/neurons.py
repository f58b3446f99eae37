"""One neuron by hand: ReLU and GELU activations, and a bias that makes ReLU an AND gate."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from engine._special import normal_cdf
from engine.answer_key import Expected, Tolerance, exact_fraction
from engine.formatting import format_number, format_vector, parenthesize
from engine.generators.base import Columns, Family, Floats, MistakeSpec, clean, floats, pad
from engine.generators.draws import Draws

ACTIVE_SHARE = 0.62  # so the answer is 0 in roughly four variants out of ten


def _neuron_draw(draws: Draws, *, low: int, high: int, max_dims: int, reach: int) -> Columns:
    """w and x on a 0.1 grid; b chosen so z lands at a target, positive in ACTIVE_SHARE of rows.

    Biases drawn blindly would make z's sign a coin toss; aiming z keeps the share of zero
    answers in the quarter-to-half range and z within `reach` tenths of 0.
    """
    dims = draws.integers(low, high)
    used = np.arange(max_dims) < dims[:, None]
    w = draws.integers(-10, 10, max_dims) * used
    x = draws.integers(-10, 10, max_dims) * used
    wx = (w * x).sum(axis=1)  # hundredths
    active = draws.uniform() < ACTIVE_SHARE
    target = draws.integers(1, reach) * np.where(active, 10, -10)
    b = np.clip(np.rint((target - wx) / 10), -20, 20).astype(np.int64)
    return {"dims": dims, "w": w / 10, "x": x / 10, "b": b / 10}


def _neuron_row(data: Columns, i: int) -> dict[str, Any]:
    dims = int(data["dims"][i])
    return {
        "w": floats(data["w"][i, :dims]),
        "b": float(data["b"][i]),
        "x": floats(data["x"][i, :dims]),
    }


def _neuron_columns(rows: Sequence[Mapping[str, Any]]) -> Columns:
    for r in rows:
        if len(r["w"]) != len(r["x"]) or not r["w"]:
            raise ValueError("w and x need the same, non-zero number of entries")
    return {
        "dims": np.array([len(r["w"]) for r in rows], dtype=np.int64),
        "w": pad([[float(v) for v in r["w"]] for r in rows]),
        "x": pad([[float(v) for v in r["x"]] for r in rows]),
        "b": np.array([float(r["b"]) for r in rows], dtype=np.float64),
    }


def _dot_steps(row: Mapping[str, Any]) -> tuple[list[str], Fraction, Fraction]:
    """`w · x = …` and `z = …` with exact decimals, and the two sums."""
    w = [exact_fraction(v) for v in row["w"]]
    x = [exact_fraction(v) for v in row["x"]]
    b = exact_fraction(row["b"])
    wx = sum((a * c for a, c in zip(w, x, strict=True)), Fraction(0))
    terms = " + ".join(
        f"{parenthesize(format_number(a))} × {parenthesize(format_number(c))}"
        for a, c in zip(w, x, strict=True)
    )
    z = wx + b
    shown_b = parenthesize(format_number(b))
    return (
        [
            f"w · x = {terms} = {format_number(wx)}",
            f"z = w · x + b = {format_number(wx)} + {shown_b} = {format_number(z)}",
        ],
        wx,
        z,
    )


class ReluNeuron(Family):
    name = "relu_neuron"
    title = "The output of one ReLU neuron"
    tolerance = Tolerance.absolute(0.005)
    mistake_specs = (
        MistakeSpec(
            "no_relu", "That is the pre-activation z = w · x + b; ReLU turns a negative z into 0."
        ),
        MistakeSpec("no_bias", "The bias is missing: add b to w · x before applying ReLU."),
        MistakeSpec("bias_sign", "The bias was subtracted; it is added: z = w · x + b."),
    )

    def draw(self, draws: Draws) -> Columns:
        return _neuron_draw(draws, low=3, high=6, max_dims=6, reach=15)

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        wx = clean((data["w"] * data["x"]).sum(axis=1))
        z = clean(wx + data["b"])
        return np.maximum(z, 0.0), {
            "no_relu": z,
            "no_bias": np.maximum(wx, 0.0),
            "bias_sign": np.maximum(clean(wx - data["b"]), 0.0),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return _neuron_row(data, i)

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        return _neuron_columns(rows)

    def prompt(self, row: Mapping[str, Any]) -> str:
        return (
            f"A neuron has the weights **w** = {format_vector(row['w'])} and the bias"
            f" b = {format_number(row['b'])}. Its input is **x** = {format_vector(row['x'])}."
            " What does the neuron output after ReLU?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        lines, _, z = _dot_steps(row)
        shown = format_number(z)
        return [*lines, f"ReLU(z) = max(0, {shown}) = {format_number(max(z, Fraction(0)))}"]


class GeluNeuron(Family):
    name = "gelu_neuron"
    title = "The output of one GELU neuron"
    tolerance = Tolerance.absolute(0.005)  # wide enough for GELU's tanh approximation
    places = 3
    mistake_specs = (
        MistakeSpec(
            "relu_instead", "That is ReLU(z); GELU multiplies z by Φ(z), so it is smooth near 0."
        ),
        MistakeSpec("phi_only", "That is Φ(z) alone; GELU(z) = z · Φ(z)."),
        MistakeSpec("no_bias", "The bias is missing: add b to w · x before applying GELU."),
    )

    def draw(self, draws: Draws) -> Columns:
        return _neuron_draw(draws, low=2, high=4, max_dims=4, reach=25)

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        wx = clean((data["w"] * data["x"]).sum(axis=1))
        z = clean(wx + data["b"])
        phi = normal_cdf(z)
        return clean(z * phi), {
            "relu_instead": np.maximum(z, 0.0),
            "phi_only": clean(phi),
            "no_bias": clean(wx * normal_cdf(wx)),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return _neuron_row(data, i)

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        return _neuron_columns(rows)

    def prompt(self, row: Mapping[str, Any]) -> str:
        return (
            f"A neuron has the weights **w** = {format_vector(row['w'])} and the bias"
            f" b = {format_number(row['b'])}. Its input is **x** = {format_vector(row['x'])}."
            " Its activation is GELU(z) = z · Φ(z), where Φ is the standard normal CDF."
            " What does the neuron output? Give at least two decimals."
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        lines, _, z = _dot_steps(row)
        phi = 0.5 * (1 + math.erf(float(z) / math.sqrt(2)))
        shown = format_number(z)
        return [
            *lines,
            f"Φ({shown}) = ½ · (1 + erf({shown} / √2)) ≈ {format_number(phi, places=4)}",
            f"GELU(z) = z · Φ(z) ≈ {shown} × {format_number(phi, places=4)}"
            f" ≈ {format_number(float(z) * phi, places=3)}",
        ]


FEATURE_PAIRS = (
    ("Michael", "Jordan"),
    ("Michael", "Phelps"),
    ("Eiffel", "Tower"),
    ("New", "York"),
    ("Harry", "Potter"),
)
_PAIR_INDEX: dict[tuple[str, ...], int] = {pair: i for i, pair in enumerate(FEATURE_PAIRS)}
_OPEN_CLOSED = (False, True)


class AndGateBias(Family):
    name = "and_gate_bias"
    title = "A bias that makes a ReLU neuron an AND gate"
    tolerance = Tolerance.exact()
    answer_bounds = _OPEN_CLOSED
    mistake_specs = (
        MistakeSpec(
            "or_gate", "With that bias one feature alone is enough: an OR gate.", _OPEN_CLOSED
        ),
        MistakeSpec(
            "always_on",
            "With a positive bias the neuron fires even with neither feature.",
            (False, False),
        ),
        MistakeSpec(
            "always_off", "With that bias even both features together don't reach 0.", _OPEN_CLOSED
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        return {
            "scale": draws.integers(5, 30) / 10,
            "pair": draws.integers(0, len(FEATURE_PAIRS) - 1),
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        s = np.asarray(data["scale"], dtype=np.float64)
        inf, zero = np.full_like(s, np.inf), np.zeros_like(s)
        return np.stack([-2 * s, -s], axis=1), {
            "or_gate": np.stack([-s, zero], axis=1),
            "always_on": np.stack([zero, inf], axis=1),
            "always_off": np.stack([-inf, -2 * s], axis=1),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "scale": floats(data["scale"][i : i + 1])[0],
            "features": list(FEATURE_PAIRS[int(data["pair"][i])]),
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        pairs = [tuple(str(f) for f in r.get("features", FEATURE_PAIRS[0])) for r in rows]
        if any(float(r["scale"]) <= 0 for r in rows):
            raise ValueError("scale must be positive")
        if unknown := [p for p in pairs if p not in _PAIR_INDEX]:
            raise ValueError(f"unknown feature pairs: {unknown}")
        return {
            "scale": np.array([float(r["scale"]) for r in rows], dtype=np.float64),
            "pair": np.array([_PAIR_INDEX[p] for p in pairs], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        a, b = row["features"]
        s = format_number(row["scale"])
        return (
            f"A neuron's row is {s} × ({a} + {b}), where {a} and {b} are perpendicular"
            f" feature directions of length 1. An input holds each of the two features with"
            f" strength 0 or 1 (anything else in it is perpendicular to both). Give a bias b"
            f" that makes ReLU(row · x + b) positive only when {a} and {b} are both present:"
            " an AND gate."
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        s = exact_fraction(row["scale"])
        f = format_number
        return [
            f"row · x is 0 with neither feature, {f(s)} with one, {f(2 * s)} with both.",
            f"Both present must fire: {f(2 * s)} + b > 0, so b > {f(-2 * s)}.",
            f"One alone must stay at 0: {f(s)} + b ≤ 0, so b ≤ {f(-s)}.",
            f"Any b in ({f(-2 * s)}, {f(-s)}] works, for example b = {f(-3 * s / 2)}.",
        ]
