"""What the parameter-count families share: named models, widths, and column helpers.

Widths are multiples of 64 up to 16,384, or those of named models; every answer is an exact
integer below 2**53, so it is carried exactly in the batch's float64 arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.formatting import format_number as f
from engine.generators.base import Columns, Floats
from engine.generators.draws import Draws

Ints = NDArray[np.int64]


@dataclass(frozen=True)
class NamedModel:
    name: str
    d_model: int
    layers: int  # 0: not a stack of decoder blocks, so only per-layer questions
    heads: int
    vocab: int
    context: int


MODELS = (
    NamedModel("the original Transformer (base)", 512, 0, 8, 37_000, 512),
    NamedModel("GPT-2 small", 768, 12, 12, 50_257, 1024),
    NamedModel("GPT-2 medium", 1024, 24, 16, 50_257, 1024),
    NamedModel("GPT-2 large", 1280, 36, 20, 50_257, 1024),
    NamedModel("GPT-2 XL", 1600, 48, 25, 50_257, 1024),
    NamedModel("GPT-3", 12_288, 96, 96, 50_257, 2048),
)
GPT2 = [i for i, m in enumerate(MODELS) if m.name.startswith("GPT-2")]
MODEL_INDEX = {m.name: i for i, m in enumerate(MODELS)}
MODEL_D = np.array([m.d_model for m in MODELS], dtype=np.int64)
MODEL_LAYERS = np.array([m.layers for m in MODELS], dtype=np.int64)
MODEL_HEADS = np.array([m.heads for m in MODELS], dtype=np.int64)
MODEL_VOCAB = np.array([m.vocab for m in MODELS], dtype=np.int64)
MODEL_CONTEXT = np.array([m.context for m in MODELS], dtype=np.int64)
RATIOS = (2, 3, 4, 4, 4, 4, 8)  # 4 as in the Transformer and GPT papers, most of the time


def draw_width(draws: Draws, *, models: Sequence[int], max_k: int = 256) -> Columns:
    """d_model from a named model (a third of the time) or a multiple of 64; ratio to match."""
    named = draws.uniform() < 0.35
    model = draws.pick(np.array(models, dtype=np.int64))
    d = np.where(named, MODEL_D[model], 64 * draws.integers(1, max_k))
    ratio = np.where(named, 4, draws.pick(RATIOS))
    return {"d_model": d, "ratio": ratio, "model": np.where(named, model, -1)}


def model_name(data: Columns, i: int) -> str | None:
    index = int(data["model"][i])
    return None if index < 0 else MODELS[index].name


def model_index(row: Mapping[str, Any]) -> int:
    name = row.get("model")
    if name is None:
        return -1
    if name not in MODEL_INDEX:
        raise ValueError(f"unknown model {name!r}")
    return MODEL_INDEX[name]


def ints(rows: Sequence[Mapping[str, Any]], key: str, default: int | None = None) -> Ints:
    values = [int(r.get(key, default)) if default is not None else int(r[key]) for r in rows]
    if any(v < 0 for v in values):
        raise ValueError(f"{key} must not be negative")
    return np.array(values, dtype=np.int64)


def flags(rows: Sequence[Mapping[str, Any]], key: str, default: bool) -> NDArray[np.bool_]:
    return np.array([bool(r.get(key, default)) for r in rows], dtype=np.bool_)


def exact(values: Ints) -> Floats:
    return values.astype(np.float64)


def only(applies: NDArray[np.bool_], values: Ints) -> Floats:
    """A mistake's values where it applies to the variant's convention, NaN elsewhere."""
    return np.where(applies, values.astype(np.float64), np.nan)


def intro(row: Mapping[str, Any]) -> str:
    d, r = f(row["d_model"]), row["ratio"]
    if row.get("model"):
        return f"In {row['model']}, d_model = {d} and the MLP's hidden layer is {r} times as wide."
    return f"A transformer has d_model = {d}, and its MLP's hidden layer is {r} times as wide."
