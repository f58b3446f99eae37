"""The coding questions' problems: each reference solution, its visible examples and how its
hidden cases are drawn. The references are written for clarity and for float64; the content's
model solutions are written apart (content/interview/questions/coding.yaml) and a test runs
them through the sandbox against these.

Hidden cases lean on what the usual mistakes get wrong: logits large enough to overflow an
exponential taken without subtracting the maximum, sequences long enough for a mask on the
wrong side to matter, head counts that make a wrong split show.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.coding.problem import Arguments, Problem
from engine.counting import ModelShape, count_parameters

Array = np.ndarray[Any, Any]
Rng = np.random.Generator


# --- softmax and the losses built on it --------------------------------------------------------


def softmax(x: Array) -> Array:
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


def log_softmax(x: Array) -> Array:
    shifted = x - x.max(axis=-1, keepdims=True)
    return np.asarray(shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True)))


def cross_entropy(logits: Array, targets: Array) -> Array:
    picked = log_softmax(logits)[np.arange(len(targets)), targets]
    return np.asarray(-picked.mean())


def label_smoothed_cross_entropy(logits: Array, targets: Array, smoothing: float) -> Array:
    logp = log_softmax(logits)
    vocab = logits.shape[-1]
    target = np.full(logits.shape, smoothing / vocab)
    target[np.arange(len(targets)), targets] += 1.0 - smoothing
    return np.asarray(-(target * logp).sum(axis=-1).mean())


def perplexity(log_probs: Array) -> Array:
    return np.asarray(np.exp(-np.mean(log_probs)))


def _logits(rng: Rng, n: int, *, batched: bool = True) -> tuple[str, Array]:
    """Logits whose scale grows with n, past what exp() survives (exp(710) overflows). The
    first row reaches the scale; the others peak lower, so a maximum taken over the whole
    array instead of each row leaves a row with nothing but zeros to divide by."""
    scale = [1, 3, 10, 50, 200, 800, 1000, 5][(n - 1) % 8]
    shape = (int(rng.integers(2, 6)), int(rng.integers(3, 12))) if batched else (1, 12)
    peaks = np.concatenate([[scale], rng.uniform(-scale, scale, size=shape[0] - 1)])
    x = rng.uniform(-scale, 0, size=shape) + peaks[:, None]
    x[np.arange(shape[0]), rng.integers(0, shape[1], size=shape[0])] = peaks
    return f"logits up to ±{scale:,}", x if batched else x[0]


def _softmax_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    what, x = _logits(rng, n)
    if n == 8:
        x = rng.normal(size=(2, 3, 5)) * 4
        what = "a batch of 2 × 3 rows"
    return what, {"x": x}


def _targets_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    what, logits = _logits(rng, n)
    targets = rng.integers(0, logits.shape[1], size=logits.shape[0])
    return what, {"logits": logits, "targets": targets}


def _smoothed_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    what, arguments = _targets_case(rng, n)
    smoothing = [0.0, 0.1, 0.2, 0.05][n % 4]
    return f"{what}, smoothing {smoothing}", {**arguments, "smoothing": smoothing}


def _perplexity_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    # Long enough texts, at about 3 nats a token, that a product of probabilities underflows.
    length = int(rng.integers(5, 200)) if n <= 4 else int(rng.integers(300, 1001))
    return f"{length} tokens", {"log_probs": -rng.gamma(2.0, 1.5, size=length)}


# --- normalisation and the MLP -----------------------------------------------------------------


def layer_norm(x: Array, gamma: Array, beta: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return np.asarray(gamma * (x - mean) / np.sqrt(var + eps) + beta)


def rms_norm(x: Array, gamma: Array, eps: float) -> Array:
    return np.asarray(gamma * x / np.sqrt((x**2).mean(axis=-1, keepdims=True) + eps))


GELU_C = math.sqrt(2 / math.pi)


def gelu(x: Array) -> Array:
    return np.asarray(0.5 * x * (1 + np.tanh(GELU_C * (x + 0.044715 * x**3))))


def mlp_block(x: Array, w_up: Array, b_up: Array, w_down: Array, b_down: Array) -> Array:
    return gelu(x @ w_up + b_up) @ w_down + b_down


def _norm_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    d = int(rng.integers(4, 33))
    rows = int(rng.integers(1, 6))
    offset = [0, 5, -20, 1000][n % 4]
    x = rng.normal(offset, [1, 0.01, 3, 50][n % 4], size=(rows, d))
    return f"{rows} × {d}, centred near {offset}", {
        "x": x,
        "gamma": rng.normal(1, 0.2, size=d),
        "beta": rng.normal(0, 0.2, size=d),
        "eps": 1e-5,
    }


def _rms_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    if n in (3, 7):
        # Values near 1e-3: their mean square is about eps, so where eps goes shows.
        d = int(rng.integers(4, 17))
        x = rng.normal(0, 1e-3, size=(2, d))
        return f"2 × {d}, values near 0.001", {
            "x": x,
            "gamma": rng.normal(1, 0.2, size=d),
            "eps": 1e-6,
        }
    what, arguments = _norm_case(rng, n)
    return what, {"x": arguments["x"], "gamma": arguments["gamma"], "eps": 1e-6}


def _gelu_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    spread = [1, 3, 10, 30][n % 4]
    return f"values within ±{spread * 3}", {"x": rng.normal(0, spread, size=(3, 7))}


def _mlp_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    d = int(rng.integers(2, 9))
    hidden = 4 * d
    tokens = int(rng.integers(1, 6))
    return f"{tokens} tokens, d_model {d}", {
        "x": rng.normal(size=(tokens, d)),
        "w_up": rng.normal(0, 0.5, size=(d, hidden)),
        "b_up": rng.normal(0, 0.1, size=hidden),
        "w_down": rng.normal(0, 0.5, size=(hidden, d)),
        "b_down": rng.normal(0, 0.1, size=d),
    }


# --- attention ---------------------------------------------------------------------------------


def causal_mask(n: Any) -> Array:
    n = int(n)
    return np.where(np.triu(np.ones((n, n), dtype=bool), k=1), -np.inf, 0.0)


def causal_attention(q: Array, k: Array, v: Array) -> Array:
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    scores = scores + causal_mask(q.shape[-2])
    return softmax(scores) @ v


def multi_head_attention(
    x: Array, w_q: Array, w_k: Array, w_v: Array, w_o: Array, n_heads: Any
) -> Array:
    batch, tokens, d = x.shape
    heads = int(n_heads)
    dh = d // heads

    def split(t: Array) -> Array:
        return t.reshape(batch, tokens, heads, dh).transpose(0, 2, 1, 3)

    out = causal_attention(split(x @ w_q), split(x @ w_k), split(x @ w_v))
    return out.transpose(0, 2, 1, 3).reshape(batch, tokens, d) @ w_o


def grouped_query_attention(q: Array, k: Array, v: Array) -> Array:
    per_group = q.shape[0] // k.shape[0]
    return causal_attention(q, np.repeat(k, per_group, axis=0), np.repeat(v, per_group, axis=0))


def kv_cache_step(
    k_cache: Array, v_cache: Array, q: Array, k_new: Array, v_new: Array
) -> tuple[Array, Array, Array]:
    keys = np.concatenate([k_cache, k_new[None, :]], axis=0)
    values = np.concatenate([v_cache, v_new[None, :]], axis=0)
    weights = softmax(keys @ q / math.sqrt(q.shape[-1]))
    return keys, values, weights @ values


def _qkv_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    tokens = [1, 2, 4, 7, 9, 12, 16, 5][(n - 1) % 8]
    d = int(rng.integers(2, 9))
    shape = (tokens, d) if n % 2 else (2, tokens, d)
    what = f"{tokens} tokens, head size {d}" + ("" if n % 2 else ", batch of 2")
    q, k, v = (rng.normal(0, 1.5, size=shape) for _ in range(3))
    return what, {"q": q, "k": k, "v": v}


def _mha_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    heads = [1, 2, 3, 4, 2, 4, 6, 8][(n - 1) % 8]
    dh = int(rng.integers(2, 5))
    d, tokens, batch = heads * dh, int(rng.integers(2, 9)), int(rng.integers(1, 4))
    scale = 1 / math.sqrt(d)
    return f"batch {batch}, {tokens} tokens, {heads} heads of {dh}", {
        "x": rng.normal(size=(batch, tokens, d)),
        **{name: rng.normal(0, scale * 2, size=(d, d)) for name in ("w_q", "w_k", "w_v", "w_o")},
        "n_heads": heads,
    }


def _gqa_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    groups = [1, 2, 2, 4, 1, 3, 2, 4][(n - 1) % 8]
    per_group = [4, 2, 3, 2, 1, 2, 4, 1][(n - 1) % 8]
    tokens, dh = int(rng.integers(2, 9)), int(rng.integers(2, 6))
    return f"{groups * per_group} query heads sharing {groups} key-value heads", {
        "q": rng.normal(size=(groups * per_group, tokens, dh)),
        "k": rng.normal(size=(groups, tokens, dh)),
        "v": rng.normal(size=(groups, tokens, dh)),
    }


def _kv_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    past, d = [0, 1, 3, 8, 20, 5, 2, 40][(n - 1) % 8], int(rng.integers(2, 9))
    return f"{past} tokens cached, head size {d}", {
        "k_cache": rng.normal(size=(past, d)),
        "v_cache": rng.normal(size=(past, d)),
        "q": rng.normal(0, 2, size=d),
        "k_new": rng.normal(size=d),
        "v_new": rng.normal(size=d),
    }


def _mask_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    size = [1, 2, 3, 5, 8, 13, 21, 34][(n - 1) % 8]
    return f"{size} tokens", {"n": size}


# --- positions ---------------------------------------------------------------------------------


def sinusoidal_positions(n_positions: Any, d_model: Any) -> Array:
    positions = np.arange(int(n_positions))[:, None]
    rates = 10000.0 ** (-np.arange(0, int(d_model), 2) / int(d_model))
    table = np.zeros((int(n_positions), int(d_model)))
    table[:, 0::2] = np.sin(positions * rates)
    table[:, 1::2] = np.cos(positions * rates)
    return table


def rotary(x: Array, positions: Array, base: float) -> Array:
    d = x.shape[-1]
    angles = positions[:, None] * base ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x, dtype=np.float64)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def embed_tokens(tokens: Array, token_table: Array, position_table: Array) -> Array:
    return token_table[tokens] + position_table[: tokens.shape[-1]]


def _positions_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    count, d = (
        [1, 4, 16, 50, 128, 7, 3, 64][(n - 1) % 8],
        [2, 4, 8, 16, 64, 6, 10, 128][(n - 1) % 8],
    )
    return f"{count} positions, d_model {d}", {"n_positions": count, "d_model": d}


def _rotary_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    tokens, d = int(rng.integers(1, 10)), 2 * int(rng.integers(1, 9))
    start = [0, 0, 5, 100, 4096, 1, 0, 30000][(n - 1) % 8]
    return f"{tokens} tokens from position {start}, d {d}", {
        "x": rng.normal(size=(tokens, d)),
        "positions": np.arange(start, start + tokens, dtype=np.float64),
        "base": [10000.0, 10000.0, 500000.0, 10000.0][n % 4],
    }


def _embed_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    vocab, d, context = int(rng.integers(5, 40)), int(rng.integers(2, 9)), 16
    batch, tokens = int(rng.integers(1, 4)), int(rng.integers(1, context + 1))
    return f"batch {batch} of {tokens} tokens", {
        "tokens": rng.integers(0, vocab, size=(batch, tokens)),
        "token_table": rng.normal(size=(vocab, d)),
        "position_table": rng.normal(size=(context, d)),
    }


# --- sampling ----------------------------------------------------------------------------------


def greedy_next(logits: Array) -> Array:
    return np.asarray(np.argmax(logits, axis=-1))


def temperature_probabilities(logits: Array, temperature: float) -> Array:
    return softmax(logits / temperature)


def top_k_probabilities(logits: Array, k: Any) -> Array:
    k = int(k)
    keep = np.argsort(-logits, kind="stable")[:k]
    masked = np.full_like(logits, -np.inf, dtype=np.float64)
    masked[keep] = logits[keep]
    return softmax(masked)


def top_p_probabilities(logits: Array, p: float) -> Array:
    probs = softmax(logits)
    order = np.argsort(-probs, kind="stable")
    cumulative = np.cumsum(probs[order])
    # The smallest prefix whose total reaches p (at least the top token).
    count = int(np.searchsorted(cumulative, p - 1e-12) + 1)
    kept = order[: min(count, len(order))]
    out = np.zeros_like(probs)
    out[kept] = probs[kept] / probs[kept].sum()
    return out


def _greedy_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    batch, vocab = int(rng.integers(1, 6)), int(rng.integers(2, 60))
    return f"{batch} rows over {vocab} tokens", {"logits": rng.normal(0, 3, size=(batch, vocab))}


def _temperature_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    temperature = [1.0, 0.5, 2.0, 0.1, 0.01, 10.0, 0.7, 1.3][(n - 1) % 8]
    what, logits = _logits(rng, min(n, 4), batched=False)
    return f"temperature {temperature}, {what}", {"logits": logits, "temperature": temperature}


def _top_k_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    vocab = int(rng.integers(5, 50))
    k = [1, 2, 3, 5, vocab, 4, 10, 1][(n - 1) % 8]
    k = min(k, vocab)
    return f"k = {k} of {vocab}", {"logits": rng.normal(0, 2, size=vocab), "k": k}


def _top_p_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    p = [0.9, 0.5, 0.95, 0.1, 1.0, 0.75, 0.99, 0.3][(n - 1) % 8]
    vocab = int(rng.integers(5, 50))
    return f"p = {p} over {vocab} tokens", {"logits": rng.normal(0, 2, size=vocab), "p": p}


# --- training ----------------------------------------------------------------------------------


def adamw_step(
    param: Array,
    grad: Array,
    m: Array,
    v: Array,
    t: Any,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
) -> tuple[Array, Array, Array]:
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad**2
    m_hat = m / (1 - beta1 ** int(t))
    v_hat = v / (1 - beta2 ** int(t))
    param = param * (1 - lr * weight_decay) - lr * m_hat / (np.sqrt(v_hat) + eps)
    return param, m, v


def clip_by_global_norm(grads: list[Array], max_norm: float) -> list[Array]:
    norm = math.sqrt(sum(float((g**2).sum()) for g in grads))
    scale = min(1.0, max_norm / (norm + 1e-6))
    return [g * scale for g in grads]


def warmup_cosine(steps: Array, warmup: Any, total: Any, max_lr: float, min_lr: float) -> Array:
    s = steps.astype(np.float64)
    warm, whole = float(warmup), float(total)
    progress = np.clip((s - warm) / max(whole - warm, 1.0), 0.0, 1.0)
    cosine = min_lr + 0.5 * (max_lr - min_lr) * (1 + np.cos(math.pi * progress))
    ramp = max_lr * s / max(warm, 1.0)
    return np.where(s < warm, ramp, cosine)


def count_gpt_parameters(
    vocab: Any, d_model: Any, layers: Any, context: Any, ratio: Any, tied: Any
) -> Array:
    shape = ModelShape(
        d_model=int(d_model),
        layers=int(layers),
        vocab=int(vocab),
        context=int(context),
        ratio=int(ratio),
        tied=bool(tied),
    )
    return np.asarray(count_parameters(shape).total, dtype=np.int64)


def _adamw_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    shape = (int(rng.integers(1, 5)), int(rng.integers(1, 6)))
    if n == 8:
        # The first step from empty moments with tiny gradients: where eps goes shows.
        return "the first step, gradients near 1e-6", {
            "param": rng.normal(size=shape),
            "grad": rng.normal(0, 1e-6, size=shape),
            "m": np.zeros(shape),
            "v": np.zeros(shape),
            "t": 1,
            "lr": 1e-3,
            "beta1": 0.9,
            "beta2": 0.999,
            "eps": 1e-8,
            "weight_decay": 0.0,
        }
    t = [1, 2, 10, 100, 1000, 3, 1, 50][(n - 1) % 8]
    decay = [0.0, 0.01, 0.1, 0.0][n % 4]
    return f"step {t}, weight decay {decay}", {
        "param": rng.normal(size=shape),
        "grad": rng.normal(0, [1, 1e-4, 10, 1][n % 4], size=shape),
        "m": rng.normal(0, 0.1, size=shape),
        "v": rng.gamma(1.0, 0.01, size=shape),
        "t": t,
        "lr": [1e-3, 3e-4, 1e-2, 6e-4][n % 4],
        "beta1": 0.9,
        "beta2": [0.999, 0.95][n % 2],
        "eps": 1e-8,
        "weight_decay": decay,
    }


def _clip_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    grads = [rng.normal(0, [0.01, 1, 10, 100][n % 4], size=tuple(rng.integers(1, 5, size=2)))
             for _ in range(int(rng.integers(1, 5)))]  # fmt: skip
    max_norm = [1.0, 0.5, 5.0, 1000.0][n % 4]
    return f"{len(grads)} gradients, max norm {max_norm}", {"grads": grads, "max_norm": max_norm}


def _schedule_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    warmup = [0, 10, 100, 2000, 5, 1, 50, 0][(n - 1) % 8]
    total = warmup + int(rng.integers(1, 5000))
    steps = np.unique(
        np.concatenate([[0, warmup, total, total + 10], rng.integers(0, total + 20, size=12)])
    )
    return f"{warmup} warm-up steps of {total}", {
        "steps": steps.astype(np.int64),
        "warmup": warmup,
        "total": total,
        "max_lr": [3e-4, 1e-3, 6e-4, 1.0][n % 4],
        "min_lr": [3e-5, 0.0, 6e-5, 0.1][n % 4],
    }


def _count_case(rng: Rng, n: int) -> tuple[str, Arguments]:
    d = int(rng.choice([64, 128, 256, 512, 768, 1024, 4096]))
    layers, vocab = int(rng.integers(1, 49)), int(rng.integers(100, 100_000))
    context, ratio, tied = (
        int(rng.choice([0, 512, 1024, 2048])),
        int(rng.choice([2, 4])),
        bool(n % 2),
    )
    return f"{layers} layers, d_model {d}, vocab {vocab:,}", {
        "vocab": vocab,
        "d_model": d,
        "layers": layers,
        "context": context,
        "ratio": ratio,
        "tied": tied,
    }


def _a(*rows: Any) -> Array:
    return np.array(rows, dtype=np.float64)


PROBLEMS: dict[str, Problem] = {
    p.name: p
    for p in (
        Problem(
            "softmax",
            "softmax",
            ("x",),
            softmax,
            examples=({"x": _a([1.0, 2.0, 3.0])}, {"x": _a([0.0, 0.0], [1.0, -1.0])}),
            make=_softmax_case,
        ),
        Problem(
            "log_softmax",
            "log_softmax",
            ("x",),
            log_softmax,
            examples=({"x": _a([1.0, 2.0, 3.0])},),
            make=_softmax_case,
        ),
        Problem(
            "cross_entropy",
            "cross_entropy",
            ("logits", "targets"),
            cross_entropy,
            examples=(
                {"logits": _a([2.0, 0.0, 0.0], [0.0, 0.0, 0.0]), "targets": np.array([0, 2])},
            ),
            make=_targets_case,
        ),
        Problem(
            "label_smoothing",
            "label_smoothed_cross_entropy",
            ("logits", "targets", "smoothing"),
            label_smoothed_cross_entropy,
            examples=({"logits": _a([2.0, 0.0, 0.0]), "targets": np.array([0]), "smoothing": 0.1},),
            make=_smoothed_case,
        ),
        Problem(
            "perplexity",
            "perplexity",
            ("log_probs",),
            perplexity,
            examples=({"log_probs": np.log(_a(0.5, 0.25, 0.5, 0.25))},),
            make=_perplexity_case,
        ),
        Problem(
            "layer_norm",
            "layer_norm",
            ("x", "gamma", "beta", "eps"),
            layer_norm,
            examples=(
                {
                    "x": _a([1.0, 2.0, 3.0, 4.0]),
                    "gamma": np.ones(4),
                    "beta": np.zeros(4),
                    "eps": 1e-5,
                },
            ),
            make=_norm_case,
            rtol=1e-6,
            atol=1e-8,
        ),
        Problem(
            "rms_norm",
            "rms_norm",
            ("x", "gamma", "eps"),
            rms_norm,
            examples=({"x": _a([3.0, 4.0]), "gamma": np.ones(2), "eps": 0.0},),
            make=_rms_case,
        ),
        Problem(
            "gelu",
            "gelu",
            ("x",),
            gelu,
            examples=({"x": _a(-1.0, 0.0, 1.0, 2.0)},),
            make=_gelu_case,
            atol=1e-7,
        ),
        Problem(
            "mlp_block",
            "mlp_block",
            ("x", "w_up", "b_up", "w_down", "b_down"),
            mlp_block,
            examples=(
                {
                    "x": _a([1.0, -1.0]),
                    "w_up": np.eye(2, 8),
                    "b_up": np.zeros(8),
                    "w_down": np.eye(8, 2),
                    "b_down": _a(0.5, 0.5),
                },
            ),
            make=_mlp_case,
            atol=1e-8,
        ),
        Problem(
            "causal_mask",
            "causal_mask",
            ("n",),
            causal_mask,
            examples=({"n": 3},),
            make=_mask_case,
            exact=True,
        ),
        Problem(
            "causal_attention",
            "causal_attention",
            ("q", "k", "v"),
            causal_attention,
            examples=(
                {
                    "q": _a([1.0, 0.0], [0.0, 1.0]),
                    "k": _a([1.0, 0.0], [0.0, 1.0]),
                    "v": _a([1.0, 2.0], [3.0, 4.0]),
                },
            ),
            make=_qkv_case,
            atol=1e-8,
        ),
        Problem(
            "multi_head_attention",
            "multi_head_attention",
            ("x", "w_q", "w_k", "w_v", "w_o", "n_heads"),
            multi_head_attention,
            examples=(
                {
                    "x": np.arange(8.0).reshape(1, 2, 4) / 8,
                    "w_q": np.eye(4),
                    "w_k": np.eye(4),
                    "w_v": np.eye(4),
                    "w_o": np.eye(4),
                    "n_heads": 2,
                },
            ),
            make=_mha_case,
            atol=1e-8,
        ),
        Problem(
            "grouped_query_attention",
            "grouped_query_attention",
            ("q", "k", "v"),
            grouped_query_attention,
            examples=(
                {
                    "q": np.ones((2, 2, 2)),
                    "k": _a([[1.0, 0.0], [0.0, 1.0]]),
                    "v": _a([[1.0, 2.0], [3.0, 4.0]]),
                },
            ),
            make=_gqa_case,
            atol=1e-8,
        ),
        Problem(
            "kv_cache_step",
            "kv_cache_step",
            ("k_cache", "v_cache", "q", "k_new", "v_new"),
            kv_cache_step,
            examples=(
                {
                    "k_cache": _a([1.0, 0.0]),
                    "v_cache": _a([2.0, 0.0]),
                    "q": _a(0.0, 0.0),
                    "k_new": _a(0.0, 1.0),
                    "v_new": _a(0.0, 2.0),
                },
            ),
            make=_kv_case,
            atol=1e-8,
            outputs=("k_cache", "v_cache", "output"),
        ),
        Problem(
            "sinusoidal_positions",
            "sinusoidal_positions",
            ("n_positions", "d_model"),
            sinusoidal_positions,
            examples=({"n_positions": 2, "d_model": 4},),
            make=_positions_case,
            atol=1e-8,
        ),
        Problem(
            "rotary",
            "rotary",
            ("x", "positions", "base"),
            rotary,
            examples=(
                {"x": _a([1.0, 0.0], [1.0, 0.0]), "positions": _a(0.0, 1.0), "base": 10000.0},
            ),
            make=_rotary_case,
            rtol=1e-6,
            atol=1e-8,
        ),
        Problem(
            "embed_tokens",
            "embed_tokens",
            ("tokens", "token_table", "position_table"),
            embed_tokens,
            examples=(
                {
                    "tokens": np.array([[1, 0]]),
                    "token_table": _a([0.0, 1.0], [1.0, 0.0]),
                    "position_table": _a([10.0, 10.0], [20.0, 20.0], [30.0, 30.0]),
                },
            ),
            make=_embed_case,
        ),
        Problem(
            "greedy_next",
            "greedy_next",
            ("logits",),
            greedy_next,
            examples=({"logits": _a([0.1, 2.0, -1.0], [3.0, 0.0, 0.0])},),
            make=_greedy_case,
            exact=True,
        ),
        Problem(
            "temperature",
            "temperature_probabilities",
            ("logits", "temperature"),
            temperature_probabilities,
            examples=({"logits": _a(1.0, 2.0), "temperature": 0.5},),
            make=_temperature_case,
        ),
        Problem(
            "top_k",
            "top_k_probabilities",
            ("logits", "k"),
            top_k_probabilities,
            examples=({"logits": _a(1.0, 3.0, 2.0, 0.0), "k": 2},),
            make=_top_k_case,
        ),
        Problem(
            "top_p",
            "top_p_probabilities",
            ("logits", "p"),
            top_p_probabilities,
            examples=({"logits": np.log(_a(0.5, 0.3, 0.15, 0.05)), "p": 0.75},),
            make=_top_p_case,
        ),
        Problem(
            "adamw_step",
            "adamw_step",
            ("param", "grad", "m", "v", "t", "lr", "beta1", "beta2", "eps", "weight_decay"),
            adamw_step,
            examples=(
                {
                    "param": _a(1.0),
                    "grad": _a(0.5),
                    "m": _a(0.0),
                    "v": _a(0.0),
                    "t": 1,
                    "lr": 0.1,
                    "beta1": 0.9,
                    "beta2": 0.999,
                    "eps": 1e-8,
                    "weight_decay": 0.0,
                },
            ),
            make=_adamw_case,
            rtol=1e-6,
            atol=1e-10,
            outputs=("param", "m", "v"),
        ),
        Problem(
            "clip_by_global_norm",
            "clip_by_global_norm",
            ("grads", "max_norm"),
            clip_by_global_norm,
            examples=({"grads": [_a(3.0), _a(4.0)], "max_norm": 1.0},),
            make=_clip_case,
            rtol=1e-6,
            atol=1e-10,
            outputs=("grads",),
        ),
        Problem(
            "warmup_cosine",
            "warmup_cosine",
            ("steps", "warmup", "total", "max_lr", "min_lr"),
            warmup_cosine,
            examples=(
                {
                    "steps": np.array([0, 5, 10, 55, 100]),
                    "warmup": 10,
                    "total": 100,
                    "max_lr": 1.0,
                    "min_lr": 0.0,
                },
            ),
            make=_schedule_case,
            atol=1e-12,
        ),
        Problem(
            "count_parameters",
            "count_gpt_parameters",
            ("vocab", "d_model", "layers", "context", "ratio", "tied"),
            count_gpt_parameters,
            examples=(
                {
                    "vocab": 50257,
                    "d_model": 768,
                    "layers": 12,
                    "context": 1024,
                    "ratio": 4,
                    "tied": True,
                },
            ),
            make=_count_case,
            exact=True,
        ),
    )
}
