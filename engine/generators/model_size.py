"""Counting a whole GPT-2-style model, with the convention stated in the prompt."""

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
    GPT2,
    MODEL_CONTEXT,
    MODEL_D,
    MODEL_LAYERS,
    MODEL_VOCAB,
    exact,
    flags,
    ints,
    model_index,
    model_name,
    only,
)


class ModelParams(Family):
    name = "model_params"
    title = "Parameters of a whole GPT-2-style model, with its convention stated"
    tolerance = Tolerance.exact()
    counts = True
    mistake_specs = (
        MistakeSpec(
            "blocks_only", "The embeddings are parameters too; count the token embeddings."
        ),
        MistakeSpec(
            "one_block",
            "Every block has its own weights: multiply one block by the number of blocks.",
        ),
        MistakeSpec(
            "untied_output",
            "The output layer reuses the token embeddings here; count that matrix once.",
        ),
        MistakeSpec(
            "tied_output",
            "The output layer is its own matrix here; count it besides the token embeddings.",
        ),
        MistakeSpec(
            "no_position_embeddings",
            "The learned position embeddings count too: context × d_model.",
        ),
        MistakeSpec(
            "no_layer_norms", "Layer norms have a gain and a bias per dimension; count all of them."
        ),
        MistakeSpec("no_final_norm", "The final layer norm after the last block counts too."),
        MistakeSpec("no_biases", "The linear layers have biases here; count them."),
    )

    def draw(self, draws: Draws) -> Columns:
        named = draws.uniform() < 0.4
        model = draws.pick(np.array(GPT2, dtype=np.int64))
        d = np.where(named, MODEL_D[model], 64 * draws.integers(2, 32))
        layers = np.where(named, MODEL_LAYERS[model], draws.pick([4, 6, 8, 12, 16, 24, 32]))
        vocab = np.where(named, MODEL_VOCAB[model], draws.pick([32_000, 32_768, 50_257, 65_536]))
        context = np.where(named, MODEL_CONTEXT[model], draws.pick([512, 1024, 2048, 4096]))
        flags = draws.uniform(4) < np.array([0.5, 0.6, 0.5, 0.8])
        return {
            "d_model": d,
            "layers": layers,
            "ratio": np.full_like(d, 4),
            "vocab": vocab,
            "context": context,
            "tied": named | flags[:, 0],
            "learned_positions": named | flags[:, 1],
            "biases": named | flags[:, 2],
            "final_norm": named | flags[:, 3],
            "model": np.where(named, model, -1),
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        d, r, n, v, c = (data[k] for k in ("d_model", "ratio", "layers", "vocab", "context"))
        tied, positions, b, final = (
            data[k].astype(np.int64) for k in ("tied", "learned_positions", "biases", "final_norm")
        )
        biases = (4 * d + r * d + d) * b
        block = 4 * d * d + 2 * r * d * d + biases + 4 * d
        total = v * d * (2 - tied) + positions * c * d + n * block + final * 2 * d
        return exact(total), {
            "blocks_only": exact(n * block),
            "one_block": exact(total - (n - 1) * block),
            "untied_output": only(tied == 1, total + v * d),
            "tied_output": only(tied == 0, total - v * d),
            "no_position_embeddings": exact(total - positions * c * d),
            "no_layer_norms": exact(total - n * 4 * d - final * 2 * d),
            "no_final_norm": exact(total - final * 2 * d),
            "no_biases": exact(total - n * biases),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        row: dict[str, Any] = {
            k: int(data[k][i]) for k in ("d_model", "layers", "ratio", "vocab", "context")
        }
        row |= {k: bool(data[k][i]) for k in ("tied", "learned_positions", "biases", "final_norm")}
        return row | {"model": model_name(data, i)}

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        return {
            "d_model": ints(rows, "d_model"),
            "layers": ints(rows, "layers"),
            "ratio": ints(rows, "ratio", 4),
            "vocab": ints(rows, "vocab"),
            "context": ints(rows, "context"),
            "tied": flags(rows, "tied", True),
            "learned_positions": flags(rows, "learned_positions", True),
            "biases": flags(rows, "biases", True),
            "final_norm": flags(rows, "final_norm", True),
            "model": np.array([model_index(r) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        d, v, c = f(row["d_model"]), f(row["vocab"]), f(row["context"])
        who = (
            f"{row['model']} is a GPT-2-style model. It"
            if row.get("model")
            else "A GPT-2-style model"
        )
        rules = [
            f"token embeddings, {v} × {d};",
            "learned position embeddings, one vector per position of the context;"
            if row["learned_positions"]
            else "no learned position embeddings (positions are encoded without parameters);",
            "in every block: attention (query, key, value and output projections, d_model × d_model"
            " each), the MLP, and two layer norms with a gain and a bias each;",
            "biases in every linear layer of the blocks;"
            if row["biases"]
            else "no biases in the linear layers;",
            "a final layer norm after the last block;"
            if row["final_norm"]
            else "no final layer norm;",
            "the output layer reuses the token-embedding matrix (tied embeddings)."
            if row["tied"]
            else f"a separate output layer, {d} × {v}, without a bias (untied embeddings).",
        ]
        return (
            f"{who} has {row['layers']} blocks, d_model = {d}, an MLP {row['ratio']} times as wide,"
            f" a vocabulary of {v} tokens and a context of {c} tokens. Count its parameters"
            " this way:\n\n"
            + "\n".join(f"- {rule}" for rule in rules)
            + "\n\nHow many parameters does it have?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        count = count_parameters(_shape(row))
        layers = row["layers"]
        lines = [
            f"{p.name}{' (per block)' if p.per_block else ''}: {p.formula} = {f(p.count)}"
            for p in count.parts
        ]
        return [
            *lines,
            f"{layers} blocks: {layers} × {f(count.per_block)} = {f(layers * count.per_block)}",
            f"Total: {f(count.total)}",
        ]


def _shape(row: Mapping[str, Any]) -> ModelShape:
    return ModelShape(
        d_model=row["d_model"],
        layers=row["layers"],
        vocab=row["vocab"],
        context=row["context"] if row["learned_positions"] else 0,
        ratio=row["ratio"],
        biases=row["biases"],
        tied=row["tied"],
        final_norm=row["final_norm"],
    )
