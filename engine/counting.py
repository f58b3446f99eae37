"""Parameter counts of GPT-style models, part by part, with the convention spelled out.

A total means little without its convention (tied embeddings or not, biases, position
embeddings, layer norms), so every count here says what it includes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.formatting import format_number as f


def attention_count(d_model: int, *, biases: bool) -> int:
    """Q, K, V and output projections, d_model × d_model each (heads split them, adding nothing)."""
    return 4 * d_model * d_model + (4 * d_model if biases else 0)


def mlp_count(d_model: int, ratio: int, *, biases: bool) -> int:
    """Up- and down-projection through a hidden layer `ratio` times wider than d_model."""
    return 2 * ratio * d_model * d_model + ((ratio * d_model + d_model) if biases else 0)


def layer_norm_count(d_model: int) -> int:
    """A gain and a bias per dimension."""
    return 2 * d_model


@dataclass(frozen=True)
class ModelShape:
    """A GPT-2-style decoder. `context` > 0 means learned position embeddings for that many
    positions; 0 means none (rotary or similar). `tied`: the output layer reuses the token
    embeddings. `block_norms`: two layer norms per block; `final_norm`: one after the last block.
    """

    d_model: int
    layers: int
    vocab: int
    context: int = 0
    ratio: int = 4
    biases: bool = True
    tied: bool = True
    block_norms: bool = True
    final_norm: bool = True


@dataclass(frozen=True)
class Part:
    """One part of the model: its count (per block for block parts) and how it is computed."""

    name: str
    count: int
    formula: str
    per_block: bool = False


@dataclass(frozen=True)
class ParameterCount:
    shape: ModelShape
    parts: list[Part] = field(default_factory=list)
    convention: list[str] = field(default_factory=list)

    @property
    def per_block(self) -> int:
        return sum(p.count for p in self.parts if p.per_block)

    @property
    def total(self) -> int:
        return sum(p.count * (self.shape.layers if p.per_block else 1) for p in self.parts)

    def part(self, name: str) -> Part:
        return next(p for p in self.parts if p.name == name)

    def to_dict(self) -> dict[str, Any]:
        layers = self.shape.layers
        return {
            "parts": [
                {
                    "name": p.name,
                    "count": p.count,
                    "formula": p.formula,
                    "per_block": p.per_block,
                    "total": p.count * (layers if p.per_block else 1),
                }
                for p in self.parts
            ],
            "per_block": self.per_block,
            "blocks": layers * self.per_block,
            "total": self.total,
            "convention": list(self.convention),
        }


def count_parameters(shape: ModelShape) -> ParameterCount:
    """Every part of the model and the total, with the convention in plain sentences."""
    d, r, v = shape.d_model, shape.ratio, shape.vocab
    bias_note = " + biases" if shape.biases else ""
    parts = [Part("token embeddings", v * d, f"{f(v)} × {f(d)}")]
    if shape.context:
        parts.append(Part("position embeddings", shape.context * d, f"{f(shape.context)} × {f(d)}"))
    parts += [
        Part(
            "attention",
            attention_count(d, biases=shape.biases),
            f"4 × {f(d)}²" + (f" + 4 × {f(d)}" if shape.biases else ""),
            per_block=True,
        ),
        Part(
            "MLP",
            mlp_count(d, r, biases=shape.biases),
            f"2 × {f(r * d)} × {f(d)}" + (f" + {f(r * d)} + {f(d)}" if shape.biases else ""),
            per_block=True,
        ),
    ]
    if shape.block_norms:
        parts.append(
            Part("layer norms", 2 * layer_norm_count(d), f"2 × 2 × {f(d)}", per_block=True)
        )
    if shape.final_norm:
        parts.append(Part("final layer norm", layer_norm_count(d), f"2 × {f(d)}"))
    if not shape.tied:
        parts.append(Part("output layer", v * d, f"{f(d)} × {f(v)}"))
    convention = [
        f"{shape.layers} blocks, d_model = {f(d)}, MLP hidden layer {r} × d_model = {f(r * d)}.",
        "Attention: Q, K, V and output projections, each d_model × d_model"
        f"{bias_note}; splitting into heads adds no parameters.",
        "Biases in every linear layer." if shape.biases else "No biases in the linear layers.",
        f"Learned position embeddings for {f(shape.context)} positions."
        if shape.context
        else "No learned position embeddings.",
        "Two layer norms per block (gain and bias each)."
        if shape.block_norms
        else "Layer norms not counted in the blocks.",
        "A final layer norm after the last block."
        if shape.final_norm
        else "No final layer norm counted.",
        "The output layer reuses the token embeddings (tied), so it is counted once."
        if shape.tied
        else "The output layer is a separate matrix, counted on its own (untied).",
    ]
    return ParameterCount(shape, parts, convention)
