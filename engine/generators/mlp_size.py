"""Counting an MLP layer: its weights alone, and with its biases."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.answer_key import Expected, Tolerance
from engine.formatting import format_number as f
from engine.generators.base import Columns, Family, Floats, MistakeSpec
from engine.generators.draws import Draws
from engine.generators.sizes import (
    MODEL_LAYERS,
    MODELS,
    draw_width,
    exact,
    intro,
    ints,
    model_index,
    model_name,
)


class MlpWeights(Family):
    name = "mlp_weights"
    title = "Weights in the MLP layers"
    tolerance = Tolerance.exact()
    counts = True
    mistake_specs = (
        MistakeSpec(
            "one_matrix", "That is one matrix; the MLP has two, W↑ and W↓, of the same size."
        ),
        MistakeSpec("forgot_ratio", "The hidden layer is ratio × d_model wide, not d_model."),
        MistakeSpec(
            "counted_biases", "The question leaves the biases out; count only the weights."
        ),
        MistakeSpec("one_layer", "That is one block's MLP; multiply by the number of blocks."),
    )

    def draw(self, draws: Draws) -> Columns:
        data = draw_width(draws, models=range(len(MODELS)))
        whole = draws.uniform() < 0.3
        named_layers = np.where(data["model"] >= 0, MODEL_LAYERS[np.maximum(data["model"], 0)], 0)
        random_layers = draws.pick([12, 24, 32, 48, 96])
        layers = np.where(data["model"] >= 0, named_layers, random_layers)
        data["layers"] = np.where(whole & (layers > 0), layers, 1)
        return data

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        d, r, layers = data["d_model"], data["ratio"], data["layers"]
        return exact(2 * r * d * d * layers), {
            "one_matrix": exact(r * d * d * layers),
            "forgot_ratio": exact(2 * d * d * layers),
            "counted_biases": exact((2 * r * d * d + r * d + d) * layers),
            "one_layer": exact(2 * r * d * d),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "d_model": int(data["d_model"][i]),
            "ratio": int(data["ratio"][i]),
            "layers": int(data["layers"][i]),
            "model": model_name(data, i),
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        return {
            "d_model": ints(rows, "d_model"),
            "ratio": ints(rows, "ratio", 4),
            "layers": ints(rows, "layers", 1),
            "model": np.array([model_index(r) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        if row["layers"] > 1:
            ask = (
                f"It has {row['layers']} blocks."
                " How many weights do all its MLP layers hold together"
            )
        else:
            ask = "How many weights does one of its MLP layers hold"
        return f"{intro(row)} {ask}, biases not counted?"

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        d, r, layers = row["d_model"], row["ratio"], row["layers"]
        h = r * d
        lines = [
            f"Hidden layer: {r} × {f(d)} = {f(h)} neurons.",
            f"W↑ is {f(h)} × {f(d)} = {f(h * d)} weights; W↓ is {f(d)} × {f(h)} = {f(h * d)}.",
            f"One MLP layer: 2 × {f(h * d)} = {f(2 * h * d)} weights.",
        ]
        if layers > 1:
            lines.append(f"{layers} blocks: {layers} × {f(2 * h * d)} = {f(2 * h * d * layers)}.")
        return lines


class MlpParams(Family):
    name = "mlp_params"
    title = "Parameters of one MLP layer, biases included"
    tolerance = Tolerance.exact()
    counts = True
    mistake_specs = (
        MistakeSpec("no_biases", "The biases count too: one per hidden neuron and one per output."),
        MistakeSpec("one_matrix", "That is one matrix and its biases; the MLP has two layers."),
        MistakeSpec("forgot_ratio", "The hidden layer is ratio × d_model wide, not d_model."),
    )

    def draw(self, draws: Draws) -> Columns:
        return draw_width(draws, models=range(len(MODELS)))

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        d, r = data["d_model"], data["ratio"]
        return exact(2 * r * d * d + r * d + d), {
            "no_biases": exact(2 * r * d * d),
            "one_matrix": exact(r * d * d + r * d),
            "forgot_ratio": exact(2 * d * d + 2 * d),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "d_model": int(data["d_model"][i]),
            "ratio": int(data["ratio"][i]),
            "model": model_name(data, i),
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        return {
            "d_model": ints(rows, "d_model"),
            "ratio": ints(rows, "ratio", 4),
            "model": np.array([model_index(r) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        return f"{intro(row)} How many parameters, weights and biases, does one MLP layer hold?"

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        d, r = row["d_model"], row["ratio"]
        h = r * d
        return [
            f"Hidden layer: {r} × {f(d)} = {f(h)} neurons.",
            f"Weights: W↑ and W↓, 2 × {f(h)} × {f(d)} = {f(2 * h * d)}.",
            f"Biases: {f(h)} in the hidden layer and {f(d)} at the output, {f(h + d)} in all.",
            f"Total: {f(2 * h * d)} + {f(h + d)} = {f(2 * h * d + h + d)}.",
        ]
