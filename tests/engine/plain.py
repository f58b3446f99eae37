"""Each family's answer computed again in plain Python from the variant's data.

Kept apart from the engine on purpose: no NumPy, no shared helpers, the formulas written out.
"""

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any


def _dec(value: float) -> Fraction:
    return Fraction(str(value))


def relu_neuron(d: dict[str, Any]) -> Fraction:
    z = sum(_dec(w) * _dec(x) for w, x in zip(d["w"], d["x"], strict=True)) + _dec(d["b"])
    return max(z, Fraction(0))


def gelu_neuron(d: dict[str, Any]) -> float:
    z = sum(w * x for w, x in zip(d["w"], d["x"], strict=True)) + d["b"]
    return z * 0.5 * (1 + math.erf(z / math.sqrt(2)))


def mlp_weights(d: dict[str, Any]) -> int:
    return 2 * d["ratio"] * d["d_model"] ** 2 * d["layers"]


def mlp_params(d: dict[str, Any]) -> int:
    n, r = d["d_model"], d["ratio"]
    return 2 * r * n * n + r * n + n


def attention_params(d: dict[str, Any]) -> int:
    n = d["d_model"]
    return 4 * n * n + (4 * n if d["biases"] else 0)


def _block(n: int, r: int, biases: bool) -> int:
    attention = 4 * n * n + (4 * n if biases else 0)
    mlp = 2 * r * n * n + ((r * n + n) if biases else 0)
    return attention + mlp + 2 * 2 * n


def block_params(d: dict[str, Any]) -> int:
    return _block(d["d_model"], d["ratio"], d["biases"])


def model_params(d: dict[str, Any]) -> int:
    n, v = d["d_model"], d["vocab"]
    total = v * n + d["layers"] * _block(n, d["ratio"], d["biases"])
    if d["learned_positions"]:
        total += d["context"] * n
    if d["final_norm"]:
        total += 2 * n
    if not d["tied"]:
        total += n * v
    return total


def and_gate_bias(d: dict[str, Any]) -> tuple[Fraction, Fraction]:
    s = _dec(d["scale"])
    return -2 * s, -s


def toy_mlp_forward(d: dict[str, Any]) -> Fraction:
    j = d["directions"].index(d["ask"])
    x = [_dec(v) for v in d["x"]]
    total = x[j]
    for k, row in enumerate(d["w_up"]):
        z = sum(_dec(w) * v for w, v in zip(row, x, strict=True)) + _dec(d["b_up"][k])
        total += _dec(d["w_down"][j][k]) * max(z, Fraction(0))
    return total


def attention_softmax(d: dict[str, Any]) -> float:
    scores = [
        sum(a * b for a, b in zip(d["q"], k, strict=True)) / math.sqrt(d["d_k"]) for k in d["keys"]
    ]
    exps = [math.exp(s) for s in scores]
    return exps[d["key"] - 1] / sum(exps)


def layer_norm(d: dict[str, Any]) -> float:
    x = d["x"]
    mean = sum(x) / len(x)
    var = sum((v - mean) ** 2 for v in x) / len(x)
    return d["gamma"] * (x[d["index"] - 1] - mean) / math.sqrt(var + d["eps"]) + d["beta"]


def context_cost(d: dict[str, Any]) -> int:
    k = d["factor"]
    return k * k if d["quantity"] == "attention_scores" else k


def near_orthogonal(d: dict[str, Any]) -> float:
    spread = 1 / math.sqrt(d["dims"])
    return spread if d["measure"] == "cosine" else math.degrees(spread)


def kv_cache_bytes(d: dict[str, Any]) -> float:
    values = 2 * d["layers"] * d["kv_heads"] * d["head_dim"] * d["context"] * d["batch"]
    return values * d["bytes"] / 2**30


def weight_memory(d: dict[str, Any]) -> float:
    return d["billions"] * 1e9 * d["bits"] / 8 / 1e9


def training_flops(d: dict[str, Any]) -> float:
    return 6 * d["params"] * d["tokens"]


def chinchilla_optimal(d: dict[str, Any]) -> float:
    if d["ask"] == "params":
        return math.sqrt(d["budget"] / 120) / 1e9
    return 20 * d["billions"]


def attention_mlp_flops(d: dict[str, Any]) -> float:
    dm, t = d["d_model"], d["context"]
    return (8 * dm * dm + 4 * t * dm) / (4 * d["ratio"] * dm * dm)


ANSWERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    f.__name__: f
    for f in (
        relu_neuron,
        gelu_neuron,
        mlp_weights,
        mlp_params,
        attention_params,
        block_params,
        model_params,
        and_gate_bias,
        toy_mlp_forward,
        attention_softmax,
        layer_norm,
        context_cost,
        near_orthogonal,
        kv_cache_bytes,
        weight_memory,
        training_flops,
        chinchilla_optimal,
        attention_mlp_flops,
    )
}
