"""A toy MLP that stores facts, as in the lecture: named directions, a few AND-gate neurons.

Rows of W↑ ask whether features are present, the bias and ReLU make each neuron a threshold,
and the columns of W↓ say what an active neuron adds to the vector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from engine.answer_key import Expected, Tolerance, exact_fraction
from engine.formatting import MINUS, format_number
from engine.generators.base import Columns, Family, Floats, MistakeSpec, clean, floats
from engine.generators.draws import Draws

DIRECTIONS = ("Michael", "Jordan", "Phelps", "basketball", "swimming", "Bulls")
INPUTS, OUTPUTS = (0, 1, 2), (3, 4, 5)
NEURONS = 3
# Which inputs a neuron's row asks about: pairs (AND gates) mostly, single features sometimes.
ASKS = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
ASK_WEIGHTS = (3, 3, 3, 1, 1, 1)
WRITES = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 0], [0, 1, 1]])


def _combination(coefficients: Sequence[float], names: Sequence[str]) -> str:
    """`0.9·Michael + Jordan − 0.5·Bulls`, or `0` when every coefficient is 0."""
    text = ""
    for c, name in zip(coefficients, names, strict=True):
        if c == 0:
            continue
        term = name if abs(c) == 1 else f"{format_number(abs(c))}·{name}"
        sign = MINUS if c < 0 else "+"
        text = f"{text} {sign} {term}" if text else (f"{MINUS}{term}" if c < 0 else term)
    return text or "0"


class ToyMlpForward(Family):
    name = "toy_mlp_forward"
    title = "One component of a toy MLP's output, residual included"
    tolerance = Tolerance.absolute(0.005)
    mistake_specs = (
        MistakeSpec("no_residual", "The MLP's output is added to x: keep x's own component too."),
        MistakeSpec("no_relu", "Neurons with a negative z output 0 after ReLU; they add nothing."),
    )

    def draw(self, draws: Draws) -> Columns:
        n = draws.n
        ask = draws.pick(OUTPUTS)
        asks = ASKS[draws.choice(ASK_WEIGHTS, NEURONS)]  # (n, neurons, inputs)
        w_up = np.zeros((n, NEURONS, len(DIRECTIONS)))
        w_up[:, :, : len(INPUTS)] = asks
        b_up = draws.pick([-15, -10, -10, -5, 0], NEURONS) / 10
        writes = WRITES[draws.integers(0, len(WRITES) - 1, NEURONS)]  # (n, neurons, outputs)
        writes[np.arange(n), 0, ask - len(INPUTS)] = 1  # N1 always writes the asked direction
        strengths = draws.integers(5, 20, NEURONS * len(OUTPUTS)).reshape(n, NEURONS, len(OUTPUTS))
        w_down = np.zeros((n, len(DIRECTIONS), NEURONS))
        w_down[:, len(INPUTS) :, :] = (writes * strengths).transpose(0, 2, 1) / 10
        present = draws.uniform(len(INPUTS)) < 0.6
        inputs = np.where(
            present, draws.integers(5, 10, len(INPUTS)), draws.integers(0, 2, len(INPUTS))
        )
        outputs = draws.integers(0, 5, len(OUTPUTS))
        return {
            "x": np.concatenate([inputs, outputs], axis=1) / 10,
            "w_up": w_up,
            "b_up": b_up,
            "w_down": w_down,
            "ask": ask,
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        x, ask = data["x"], data["ask"][:, None]
        z = clean((data["w_up"] * x[:, None, :]).sum(axis=2) + data["b_up"])
        down = np.take_along_axis(data["w_down"], ask[:, :, None], axis=1)[:, 0, :]  # (n, neurons)
        added = clean((down * np.maximum(z, 0.0)).sum(axis=1))
        own = np.take_along_axis(x, ask, axis=1)[:, 0]
        return clean(own + added), {
            "no_residual": added,
            "no_relu": clean(own + (down * z).sum(axis=1)),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "directions": list(DIRECTIONS),
            "x": floats(data["x"][i]),
            "w_up": [floats(r) for r in data["w_up"][i]],
            "b_up": floats(data["b_up"][i]),
            "w_down": [floats(r) for r in data["w_down"][i]],
            "ask": DIRECTIONS[int(data["ask"][i])],
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        for r in rows:
            if tuple(r.get("directions", DIRECTIONS)) != DIRECTIONS or r["ask"] not in DIRECTIONS:
                raise ValueError(f"the toy MLP's directions are {', '.join(DIRECTIONS)}")
        return {
            "x": np.array([r["x"] for r in rows], dtype=np.float64),
            "w_up": np.array([r["w_up"] for r in rows], dtype=np.float64),
            "b_up": np.array([r["b_up"] for r in rows], dtype=np.float64),
            "w_down": np.array([r["w_down"] for r in rows], dtype=np.float64),
            "ask": np.array([DIRECTIONS.index(r["ask"]) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        names = row["directions"]
        lines = [
            "| neuron | row of W↑ | bias | column of W↓ |",
            "| --- | --- | --- | --- |",
        ]
        for k in range(len(row["b_up"])):
            column = [r[k] for r in row["w_down"]]
            lines.append(
                f"| N{k + 1} | {_combination(row['w_up'][k], names)}"
                f" | {format_number(row['b_up'][k])} | {_combination(column, names)} |"
            )
        return (
            "A toy MLP works on vectors made of six perpendicular unit directions:"
            f" {', '.join(names)}."
            f" A token's vector is **x** = {_combination(row['x'], names)}. The MLP's neurons:\n\n"
            + "\n".join(lines)
            + f"\n\nThe block computes x + W↓ ReLU(W↑ x + b). What is the {row['ask']} component"
            " of the result?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        j = row["directions"].index(row["ask"])
        x = [exact_fraction(v) for v in row["x"]]
        f = format_number
        lines, total = [], x[j]
        for k, (up, b) in enumerate(zip(row["w_up"], row["b_up"], strict=True)):
            z = sum(
                (exact_fraction(w) * v for w, v in zip(up, x, strict=True)), Fraction(0)
            ) + exact_fraction(b)
            h = max(z, Fraction(0))
            writes = exact_fraction(row["w_down"][j][k])
            total += writes * h
            lines.append(
                f"N{k + 1}: z = {f(z)}, ReLU gives {f(h)};"
                f" it adds {f(writes)} × {f(h)} = {f(writes * h)} to {row['ask']}."
            )
        return [
            *lines,
            f"x already holds {f(x[j])} of {row['ask']};"
            f" with the MLP's part the component is {f(total)}.",
        ]
