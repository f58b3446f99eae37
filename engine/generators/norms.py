"""Layer norm by hand: one element of the normalized vector."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.answer_key import Expected, Tolerance
from engine.formatting import format_number, format_vector
from engine.generators.base import Columns, Family, Floats, MistakeSpec, clean, floats, pad
from engine.generators.draws import Draws

EPS = 1e-5
MAX_SIZE = 5
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


class LayerNorm(Family):
    name = "layer_norm"
    title = "One element of a layer-normalized vector"
    tolerance = Tolerance.absolute(0.005)
    places = 3
    mistake_specs = (
        MistakeSpec(
            "sample_variance", "Layer norm divides the squared deviations by n, not n − 1."
        ),
        MistakeSpec(
            "no_centering",
            "Subtract the mean first: layer norm centres the vector before scaling it.",
        ),
        MistakeSpec(
            "variance_not_std", "Divide by the standard deviation, the square root of the variance."
        ),
        MistakeSpec(
            "no_gain_bias", "After normalizing, multiply by the gain γ and add the bias β."
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        size = draws.integers(4, MAX_SIZE)
        used = np.arange(MAX_SIZE) < size[:, None]
        x = draws.integers(-3, 9, MAX_SIZE) * used
        flat = (x == x[:, :1]).all(axis=1, where=used)  # equal entries have no spread to divide by
        x[:, 1] += np.where(flat, 3, 0)
        return {
            "size": size,
            "x": x.astype(np.float64),
            "index": np.floor(draws.uniform() * size).astype(np.int64),
            "gamma": draws.pick([1.0, 1.0, 1.0, 2.0, 0.5]),
            "beta": draws.pick([0.0, 0.0, 0.0, 0.5, -1.0]),
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        x, n = data["x"], data["size"].astype(np.float64)
        used = np.arange(x.shape[1]) < data["size"][:, None]
        mean = x.sum(axis=1) / n
        squares = (np.where(used, x - mean[:, None], 0.0) ** 2).sum(axis=1)
        var = squares / n
        xi = np.take_along_axis(x, data["index"][:, None], axis=1)[:, 0]
        gamma, beta = data["gamma"], data["beta"]
        normalized = (xi - mean) / np.sqrt(var + EPS)
        return clean(gamma * normalized + beta), {
            "sample_variance": clean(gamma * (xi - mean) / np.sqrt(squares / (n - 1) + EPS) + beta),
            "no_centering": clean(gamma * xi / np.sqrt((x * x).sum(axis=1) / n + EPS) + beta),
            "variance_not_std": clean(gamma * (xi - mean) / (var + EPS) + beta),
            "no_gain_bias": clean(normalized),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        size = int(data["size"][i])
        return {
            "x": floats(data["x"][i, :size]),
            "index": int(data["index"][i]) + 1,
            "gamma": float(data["gamma"][i]),
            "beta": float(data["beta"][i]),
            "eps": EPS,
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        for r in rows:
            if len(r["x"]) < 2 or not 1 <= int(r["index"]) <= len(r["x"]) or len(set(r["x"])) < 2:
                raise ValueError("x needs at least two different entries and index must number one")
        return {
            "size": np.array([len(r["x"]) for r in rows], dtype=np.int64),
            "x": pad([[float(v) for v in r["x"]] for r in rows]),
            "index": np.array([int(r["index"]) - 1 for r in rows], dtype=np.int64),
            "gamma": np.array([float(r.get("gamma", 1.0)) for r in rows]),
            "beta": np.array([float(r.get("beta", 0.0)) for r in rows]),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        nth = _ORDINALS[row["index"] - 1] if row["index"] <= len(_ORDINALS) else f"#{row['index']}"
        return (
            f"Layer norm with gain γ = {format_number(row['gamma'])},"
            f" bias β = {format_number(row['beta'])} and ε = 10⁻⁵ is applied to"
            f" **x** = {format_vector(row['x'])}:"
            " LayerNorm(x) = γ · (x − mean) / √(variance + ε) + β, with the mean and variance taken"
            f" over the entries of x. What is the {nth} entry of the result?"
            " Give at least two decimals."
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        x, i = row["x"], row["index"] - 1
        n = len(x)
        mean = sum(x) / n
        var = sum((v - mean) ** 2 for v in x) / n
        std = math.sqrt(var + EPS)
        normalized = (x[i] - mean) / std
        gamma, beta = row["gamma"], row["beta"]

        def f(value: float) -> str:
            return format_number(value, places=4)

        return [
            f"Mean: {format_number(round(sum(x), 9))} / {n} = {f(mean)}.",
            f"Variance: the mean of the squared deviations, {f(var)} (divided by n = {n}).",
            f"Standard deviation: √({f(var)} + ε) ≈ {f(std)}.",
            f"Entry {i + 1}: ({format_number(x[i])} − {f(mean)}) / {f(std)} ≈ {f(normalized)}.",
            f"Times γ, plus β: ≈ {format_number(gamma * normalized + beta, places=3)}.",
        ]
