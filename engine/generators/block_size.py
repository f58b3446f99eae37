"""Counting attention and a whole transformer block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.answer_key import Expected, Tolerance
from engine.counting import ModelShape, count_parameters
from engine.formatting import format_number as f
from engine.generators.base import Columns, Family, Floats, MistakeSpec
from engine.generators.draws import Draws
from engine.generators.sizes import (
    MODEL_HEADS,
    MODELS,
    draw_width,
    exact,
    flags,
    intro,
    ints,
    model_index,
    model_name,
    only,
)


class AttentionParams(Family):
    name = "attention_params"
    title = "Parameters of one multi-head attention layer"
    tolerance = Tolerance.exact()
    counts = True
    mistake_specs = (
        MistakeSpec(
            "per_head",
            "That is one head's share; the heads together span d_model × d_model per matrix.",
        ),
        MistakeSpec(
            "three_matrices", "Q, K and V are three; the output projection is a fourth matrix."
        ),
        MistakeSpec("no_biases", "The projections have biases here: d_model for each of the four."),
        MistakeSpec(
            "counted_biases", "The projections have no biases here; count only the weights."
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        data = draw_width(draws, models=range(len(MODELS)))
        named = data["model"] >= 0
        k = data["d_model"] // 64
        wide_heads = (k % 2 == 0) & (draws.uniform() < 0.3)  # heads of 128 now and then
        heads = np.where(
            named, MODEL_HEADS[np.maximum(data["model"], 0)], np.where(wide_heads, k // 2, k)
        )
        biases = named | (draws.uniform() < 0.5)
        return {
            "d_model": data["d_model"],
            "heads": heads,
            "biases": biases,
            "model": data["model"],
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        d, b = data["d_model"], data["biases"].astype(np.int64)
        head = d // data["heads"]
        return exact(4 * d * d + 4 * d * b), {
            "per_head": exact(4 * d * head + 4 * head * b),
            "three_matrices": exact(3 * d * d + 3 * d * b),
            "no_biases": only(b == 1, 4 * d * d),
            "counted_biases": only(b == 0, 4 * d * d + 4 * d),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "d_model": int(data["d_model"][i]),
            "heads": int(data["heads"][i]),
            "biases": bool(data["biases"][i]),
            "model": model_name(data, i),
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        d, heads = ints(rows, "d_model"), ints(rows, "heads", 1)
        if np.any(heads == 0) or np.any(d % heads):
            raise ValueError("heads must divide d_model")
        return {
            "d_model": d,
            "heads": heads,
            "biases": flags(rows, "biases", True),
            "model": np.array([model_index(r) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        d, h = row["d_model"], row["heads"]
        where = f"In {row['model']}, an" if row.get("model") else "An"
        bias = "each with a bias vector" if row["biases"] else "without biases"
        return (
            f"{where} attention layer has d_model = {f(d)} and {h} heads of {f(d // h)} dimensions."
            f" Its query, key, value and output projections are linear layers {bias}."
            " How many parameters does the attention layer hold?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        d, h = row["d_model"], row["heads"]
        lines = [
            f"The {h} heads split W_Q, W_K and W_V into slices of {f(d // h)} columns;"
            f" together each matrix is still {f(d)} × {f(d)}.",
            f"Four matrices (Q, K, V, output): 4 × {f(d)}² = {f(4 * d * d)} weights.",
        ]
        if row["biases"]:
            lines.append(f"Four bias vectors: 4 × {f(d)} = {f(4 * d)}.")
        lines.append(f"Total: {f(4 * d * d + (4 * d if row['biases'] else 0))}.")
        return lines


class BlockParams(Family):
    name = "block_params"
    title = "Parameters of one transformer block"
    tolerance = Tolerance.exact()
    counts = True
    mistake_specs = (
        MistakeSpec(
            "no_layer_norms",
            "The two layer norms have parameters: a gain and a bias per dimension.",
        ),
        MistakeSpec(
            "one_layer_norm",
            "A block has two layer norms, one before attention and one before the MLP.",
        ),
        MistakeSpec(
            "three_matrices", "Attention has four matrices: Q, K, V and the output projection."
        ),
        MistakeSpec("no_biases", "The linear layers have biases here; count them."),
        MistakeSpec(
            "counted_biases", "The linear layers have no biases here; the layer norms keep theirs."
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        data = draw_width(draws, models=range(len(MODELS)))
        data["biases"] = (data["model"] >= 0) | (draws.uniform() < 0.5)
        return data

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        d, r, b = data["d_model"], data["ratio"], data["biases"].astype(np.int64)
        biases = (4 * d + r * d + d) * b
        total = 4 * d * d + 2 * r * d * d + biases + 4 * d
        return exact(total), {
            "no_layer_norms": exact(total - 4 * d),
            "one_layer_norm": exact(total - 2 * d),
            "three_matrices": exact(total - d * d - d * b),
            "no_biases": only(b == 1, total - biases),
            "counted_biases": only(b == 0, total + 4 * d + r * d + d),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "d_model": int(data["d_model"][i]),
            "ratio": int(data["ratio"][i]),
            "biases": bool(data["biases"][i]),
            "model": model_name(data, i),
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        return {
            "d_model": ints(rows, "d_model"),
            "ratio": ints(rows, "ratio", 4),
            "biases": flags(rows, "biases", True),
            "model": np.array([model_index(r) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        bias = "have biases" if row["biases"] else "have no biases"
        return (
            f"{intro(row)} One block holds attention (query, key, value and output projections),"
            " the MLP, and two layer norms with a gain and a bias each. The linear layers"
            f" {bias}. How many parameters does one block hold?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        shape = ModelShape(
            row["d_model"], 1, 0, ratio=row["ratio"], biases=row["biases"], final_norm=False
        )
        count = count_parameters(shape)
        lines = [f"{p.name}: {p.formula} = {f(p.count)}" for p in count.parts if p.per_block]
        return [*lines, f"One block: {f(count.per_block)}."]
