"""Attention by the numbers: one softmax weight, and what a longer context costs."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.answer_key import Expected, PartialCredit, Tolerance
from engine.formatting import format_number, format_vector
from engine.generators.base import (
    Columns,
    Family,
    Floats,
    MistakeSpec,
    clean,
    floats,
    pad,
    significant,
)
from engine.generators.draws import Draws

MAX_DK, MAX_KEYS = 4, 4
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _softmax(scores: Floats) -> Floats:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=1, keepdims=True), dtype=np.float64)


class AttentionSoftmax(Family):
    name = "attention_softmax"
    title = "The weight one query puts on one key"
    # A weight can be 0.0003 or 0.9997, so it is graded by its significant figures: an
    # absolute band would take "0" for every small weight.
    tolerance = Tolerance.relative(0.01)  # three significant figures, with rounding slack
    partial = PartialCredit(Tolerance.relative(0.03), 0.5)  # rounded too early along the way
    mistake_specs = (
        MistakeSpec("no_scaling", "The scores are divided by √d_k before the softmax."),
        MistakeSpec(
            "scaled_by_d_k", "Divide the scores by the square root of d_k, not by d_k itself."
        ),
        MistakeSpec(
            "uniform",
            "Equal weights would need equal scores; the softmax of these scores is uneven.",
        ),
        MistakeSpec(
            "no_softmax", "That is the scaled score; the weight is its softmax over all keys."
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        d_k = draws.integers(2, MAX_DK)
        n_keys = draws.integers(3, MAX_KEYS)
        dims = np.arange(MAX_DK) < d_k[:, None]
        q = draws.integers(-2, 2, MAX_DK) * dims
        q[:, 0] = np.where((q == 0).all(axis=1), 1, q[:, 0])  # a zero query attends evenly
        keys = draws.integers(-2, 2, MAX_KEYS * MAX_DK).reshape(-1, MAX_KEYS, MAX_DK)
        keys = keys * dims[:, None, :] * (np.arange(MAX_KEYS) < n_keys[:, None])[:, :, None]
        return {
            "d_k": d_k,
            "n_keys": n_keys,
            "q": q.astype(np.float64),
            "keys": keys.astype(np.float64),
            "key": np.floor(draws.uniform() * n_keys).astype(np.int64),
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        present = np.arange(data["keys"].shape[1]) < data["n_keys"][:, None]
        scores = clean((data["keys"] * data["q"][:, None, :]).sum(axis=2))
        scaled = scores / np.sqrt(data["d_k"])[:, None]
        pick = data["key"][:, None]

        def weight(s: Floats) -> Floats:
            shares = _softmax(np.where(present, s, -np.inf))
            return significant(np.take_along_axis(shares, pick, axis=1)[:, 0])

        return weight(scaled), {
            "no_scaling": weight(scores),
            "scaled_by_d_k": weight(scores / data["d_k"][:, None]),
            "uniform": significant(1 / data["n_keys"]),
            "no_softmax": clean(np.take_along_axis(scaled, pick, axis=1)[:, 0]),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        d_k, n = int(data["d_k"][i]), int(data["n_keys"][i])
        return {
            "d_k": d_k,
            "q": floats(data["q"][i, :d_k]),
            "keys": [floats(k[:d_k]) for k in data["keys"][i, :n]],
            "key": int(data["key"][i]) + 1,
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        for r in rows:
            if not r["keys"] or any(len(k) != len(r["q"]) for k in r["keys"]):
                raise ValueError("every key needs as many entries as the query")
            if not 1 <= int(r["key"]) <= len(r["keys"]):
                raise ValueError("key must number one of the keys, from 1")
        width = max(len(r["q"]) for r in rows)
        count = max(len(r["keys"]) for r in rows)
        keys = np.zeros((len(rows), count, width))
        for i, r in enumerate(rows):
            keys[i, : len(r["keys"])] = pad(r["keys"], width)
        return {
            "d_k": np.array([len(r["q"]) for r in rows], dtype=np.int64),
            "n_keys": np.array([len(r["keys"]) for r in rows], dtype=np.int64),
            "q": pad([r["q"] for r in rows], width),
            "keys": keys,
            "key": np.array([int(r["key"]) - 1 for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        keys = ", ".join(
            f"k{str(i + 1).translate(_SUBSCRIPT)} = {format_vector(k)}"
            for i, k in enumerate(row["keys"])
        )
        asked = f"k{str(row['key']).translate(_SUBSCRIPT)}"
        return (
            f"In scaled dot-product attention with d_k = {row['d_k']}, the query"
            f" **q** = {format_vector(row['q'])} meets the keys {keys}. What attention weight"
            f" does the query put on {asked}? Give three significant figures."
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        q, keys, d_k = row["q"], row["keys"], row["d_k"]
        scores = [sum(a * b for a, b in zip(q, k, strict=True)) for k in keys]
        scaled = [s / math.sqrt(d_k) for s in scores]
        exps = [math.exp(s) for s in scaled]
        j = row["key"] - 1
        f = format_number  # four significant figures, however small the number
        return [
            "Scores q · kᵢ: " + ", ".join(f(round(s, 9)) for s in scores) + ".",
            f"Divided by √{d_k} ≈ {f(math.sqrt(d_k))}: " + ", ".join(f(s) for s in scaled) + ".",
            "Exponentials: " + ", ".join(f(e) for e in exps) + f"; their sum is {f(sum(exps))}.",
            f"Weight on key {row['key']}: {f(exps[j])} / {f(sum(exps))}"
            f" ≈ {f(exps[j] / sum(exps))}.",
        ]


CONTEXTS = (512, 1000, 1024, 2000, 2048, 4096, 8192)
FACTORS = (2, 2, 2, 3, 4, 8)  # mostly doubling
QUANTITIES = ("attention_scores", "kv_cache", "mlp_compute")
_WHAT = {
    "attention_scores": "the compute for the attention scores"
    " (every query against every key, in every head)",
    "kv_cache": "the memory of the KV cache"
    " (a key and a value kept for every token in every layer)",
    "mlp_compute": "the compute in the MLP layers",
}


class ContextCost(Family):
    name = "context_cost"
    title = "What a longer context costs"
    tolerance = Tolerance.relative(0.01)  # a causal mask's n(n + 1)/2 pairs give nearly k²
    mistake_specs = (
        MistakeSpec(
            "linear_scores",
            "Every query is scored against every key: n² pairs, so k times the context"
            " is k² the work.",
        ),
        MistakeSpec(
            "quadratic_cache",
            "The cache holds one key and one value per token: it grows in step with the context.",
        ),
        MistakeSpec(
            "quadratic_mlp",
            "The MLP works on each token alone, so its cost grows in step with the tokens.",
        ),
        MistakeSpec(
            "per_token_mlp",
            "Per token the MLP costs the same, but there are k times as many tokens.",
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        return {
            "context": draws.pick(CONTEXTS),
            "factor": draws.pick(FACTORS),
            "quantity": draws.integers(0, len(QUANTITIES) - 1),
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        k = data["factor"].astype(np.float64)
        q = data["quantity"]
        nan = np.full_like(k, np.nan)
        return np.where(q == 0, k * k, k), {
            "linear_scores": np.where(q == 0, k, nan),
            "quadratic_cache": np.where(q == 1, k * k, nan),
            "quadratic_mlp": np.where(q == 2, k * k, nan),
            "per_token_mlp": np.where(q == 2, 1.0, nan),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "context": int(data["context"][i]),
            "factor": int(data["factor"][i]),
            "quantity": QUANTITIES[int(data["quantity"][i])],
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        if bad := [r["quantity"] for r in rows if r["quantity"] not in QUANTITIES]:
            raise ValueError(f"unknown quantities: {bad}")
        return {
            "context": np.array([int(r["context"]) for r in rows], dtype=np.int64),
            "factor": np.array([int(r["factor"]) for r in rows], dtype=np.int64),
            "quantity": np.array([QUANTITIES.index(r["quantity"]) for r in rows], dtype=np.int64),
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        n, k = row["context"], row["factor"]
        grown = "doubled" if k == 2 else f"made {k} times as long"
        return (
            f"A decoder-only model reads a prompt of {format_number(n)} tokens."
            f" The prompt is {grown}, to {format_number(k * n)} tokens. For processing"
            f" the whole prompt, by what factor does {_WHAT[row['quantity']]} grow?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        k = row["factor"]
        if row["quantity"] == "attention_scores":
            return [
                "Each of the n queries is scored against the n keys: n² dot products per head.",
                f"With {k} × n tokens that is {k}² = {k * k} times as many.",
            ]
        if row["quantity"] == "kv_cache":
            return [
                "The cache keeps one key and one value vector per token, per layer.",
                f"{k} times the tokens means {k} times the cache.",
            ]
        return [
            "The MLP runs on each token on its own, at the same cost per token.",
            f"{k} times the tokens means {k} times the MLP compute.",
        ]
