"""What running and training a model costs, the numbers interviews ask for: a KV cache's size,
the weights' memory at a precision, a training run's FLOPs (6ND), Chinchilla's compute-optimal
budget (about 20 tokens per parameter), and attention's FLOPs per token against the MLP's.

Memory in GiB is 2³⁰ bytes and in GB 10⁹ bytes; each prompt says which, and taking one for the
other is a named mistake. FLOPs count a multiply and an add as two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.answer_key import Expected, Tolerance
from engine.formatting import format_number as f
from engine.generators.base import Columns, Family, Floats, MistakeSpec, significant
from engine.generators.draws import Draws
from engine.generators.sizes import draw_width, intro, ints, model_index, model_name

GIB = 2**30
GB = 10**9


@dataclass(frozen=True)
class Decoder:
    """A published decoder's attention shape, for the KV cache."""

    name: str
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    context: int


DECODERS = (
    Decoder("Llama 2 7B", 32, 32, 32, 128, 4096),
    Decoder("Llama 2 70B", 80, 64, 8, 128, 4096),
    Decoder("Mistral 7B", 32, 32, 8, 128, 8192),
    Decoder("GPT-3", 96, 96, 96, 128, 2048),
)
DECODER_INDEX = {d.name: i for i, d in enumerate(DECODERS)}
PRECISION_NAMES = {4: "fp32", 2: "fp16", 1: "int8"}


def _decoder_column(rows: Sequence[Mapping[str, Any]]) -> np.ndarray:
    indices = []
    for row in rows:
        model = row.get("model")
        if model is not None and model not in DECODER_INDEX:
            raise ValueError(f"unknown model {model!r}")
        indices.append(-1 if model is None else DECODER_INDEX[model])
    return np.array(indices, dtype=np.int64)


def _amount(value: float) -> str:
    """175 billion, 1.4 trillion, 125 million: a count as said aloud."""
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if value >= size:
            return f"{f(value / size)} {word}"
    return f(value)


def _sci(value: float) -> str:
    """3.15 × 10²³, for a count too large to write out."""
    exponent = int(np.floor(np.log10(value)))
    digits = str(exponent).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    return f"{value / 10**exponent:.3g} × 10{digits}"


class KvCacheBytes(Family):
    name = "kv_cache_bytes"
    title = "The size of a KV cache"
    tolerance = Tolerance.relative(0.01)
    mistake_specs = (
        MistakeSpec("keys_only", "The cache holds a key and a value per head: count both."),
        MistakeSpec(
            "query_heads",
            "Only the key/value heads are cached; with grouped-query attention they are fewer "
            "than the query heads.",
        ),
        MistakeSpec("one_layer", "Every layer keeps its own keys and values: multiply by layers."),
        MistakeSpec("decimal_gb", "That is in GB (10⁹ bytes); a GiB is 2³⁰ = 1,073,741,824."),
        MistakeSpec("fp32", "The cache is stored at the stated precision, not in 4-byte floats."),
    )

    def draw(self, draws: Draws) -> Columns:
        named = draws.uniform() < 0.5
        model = draws.integers(0, len(DECODERS) - 1)

        def of_model(field: str) -> np.ndarray:
            return np.array([getattr(d, field) for d in DECODERS])[model]

        heads = np.where(named, of_model("heads"), draws.pick([8, 16, 32, 64]))
        group = np.minimum(draws.pick([1, 1, 4, 8]), heads)
        kv = np.where(named, of_model("kv_heads"), heads // group)
        layers = np.where(named, of_model("layers"), draws.pick([12, 24, 32, 40, 48, 80]))
        head_dim = np.where(named, of_model("head_dim"), draws.pick([64, 128]))
        window = np.where(named, of_model("context"), 131_072)
        context = np.minimum(draws.pick([1024, 2048, 4096, 8192, 32_768, 131_072]), window)
        return {
            "layers": layers,
            "heads": heads,
            "kv_heads": kv,
            "head_dim": head_dim,
            "context": context,
            "batch": draws.pick([1, 1, 4, 8, 16, 32]),
            "bytes": draws.pick([2, 2, 2, 1]),
            "model": np.where(named, model, -1),
        }

    @staticmethod
    def _bytes(data: Columns, *, kv: Any = None, layers: Any = None, size: Any = None) -> Floats:
        return (
            2.0
            * (data["layers"] if layers is None else layers)
            * (data["kv_heads"] if kv is None else kv)
            * data["head_dim"]
            * data["context"]
            * data["batch"]
            * (data["bytes"] if size is None else size)
        )

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        full = self._bytes(data)
        gqa = data["kv_heads"] != data["heads"]
        return significant(full / GIB), {
            "keys_only": significant(full / 2 / GIB),
            "query_heads": np.where(
                gqa, significant(self._bytes(data, kv=data["heads"]) / GIB), np.nan
            ),
            "one_layer": significant(self._bytes(data, layers=1) / GIB),
            "decimal_gb": significant(full / GB),
            "fp32": np.where(
                data["bytes"] != 4, significant(self._bytes(data, size=4) / GIB), np.nan
            ),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        index = int(data["model"][i])
        return {
            "layers": int(data["layers"][i]),
            "heads": int(data["heads"][i]),
            "kv_heads": int(data["kv_heads"][i]),
            "head_dim": int(data["head_dim"][i]),
            "context": int(data["context"][i]),
            "batch": int(data["batch"][i]),
            "bytes": int(data["bytes"][i]),
            "model": None if index < 0 else DECODERS[index].name,
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        columns = {
            key: ints(rows, key)
            for key in ("layers", "heads", "kv_heads", "head_dim", "context", "batch", "bytes")
        }
        if any(v not in PRECISION_NAMES for v in columns["bytes"].tolist()):
            raise ValueError("bytes must be 1, 2 or 4")
        columns["model"] = _decoder_column(rows)
        return columns

    def prompt(self, row: Mapping[str, Any]) -> str:
        who = f"{row['model']} has" if row["model"] else "A decoder has"
        heads = (
            f"{row['heads']} attention heads of dimension {row['head_dim']}, each with its own "
            "key and value head"
            if row["kv_heads"] == row["heads"]
            else f"{row['heads']} query heads of dimension {row['head_dim']} sharing "
            f"{row['kv_heads']} key/value heads (grouped-query attention)"
        )
        sequences = "one sequence" if row["batch"] == 1 else f"{row['batch']} sequences"
        precision = PRECISION_NAMES[row["bytes"]]
        return (
            f"{who} {row['layers']} layers with {heads}. It serves {sequences} of "
            f"{f(row['context'])} tokens, its KV cache stored in {precision} ({row['bytes']} "
            f"byte{'s' if row['bytes'] > 1 else ''} per number). How large is the KV cache, in "
            "GiB (2³⁰ bytes)?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        per_layer = 2 * row["kv_heads"] * row["head_dim"]
        per_token = per_layer * row["layers"]
        numbers = per_token * row["context"] * row["batch"]
        size = numbers * row["bytes"]
        return [
            f"Per token and layer: a key and a value for each of {row['kv_heads']} key/value "
            f"heads, 2 × {row['kv_heads']} × {row['head_dim']} = {f(per_layer)} numbers.",
            f"Per token: × {row['layers']} layers = {f(per_token)} numbers.",
            f"All tokens: × {f(row['context'])} tokens × {row['batch']} sequence(s) = "
            f"{f(numbers)} numbers.",
            f"Bytes: × {row['bytes']} = {f(size)} bytes; ÷ 2³⁰ = {f(size / GIB)} GiB.",
        ]


class WeightMemory(Family):
    name = "weight_memory"
    title = "The memory a model's weights take"
    tolerance = Tolerance.relative(0.01)
    mistake_specs = (
        MistakeSpec("bits_for_bytes", "That counts bits as bytes: a byte is 8 bits."),
        MistakeSpec("binary_gib", "That is in GiB (2³⁰ bytes); the question asks for GB, 10⁹."),
        MistakeSpec("fp32_assumed", "That is 4 bytes per weight; use the stated precision."),
        MistakeSpec("fp16_assumed", "That is 2 bytes per weight; use the stated precision."),
    )
    BILLIONS = (1.3, 2.7, 7, 8, 13, 34, 70, 175, 405)

    def draw(self, draws: Draws) -> Columns:
        return {
            "billions": draws.pick(self.BILLIONS).astype(np.float64),
            "bits": draws.pick([32, 16, 16, 8, 8, 4, 4]),
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        params = data["billions"] * 1e9
        size = params * data["bits"] / 8
        return significant(size / GB), {
            "bits_for_bytes": significant(params * data["bits"] / GB),
            "binary_gib": significant(size / GIB),
            "fp32_assumed": np.where(data["bits"] != 32, significant(params * 4 / GB), np.nan),
            "fp16_assumed": np.where(data["bits"] != 16, significant(params * 2 / GB), np.nan),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        billions = float(data["billions"][i])
        return {
            "billions": int(billions) if billions.is_integer() else billions,
            "bits": int(data["bits"][i]),
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        billions = np.array([float(r["billions"]) for r in rows], dtype=np.float64)
        bits = ints(rows, "bits")
        if (billions <= 0).any() or any(b not in (4, 8, 16, 32) for b in bits.tolist()):
            raise ValueError("billions must be positive and bits 4, 8, 16 or 32")
        return {"billions": billions, "bits": bits}

    def prompt(self, row: Mapping[str, Any]) -> str:
        kind = {32: "fp32", 16: "bf16", 8: "int8", 4: "4-bit integers"}[row["bits"]]
        return (
            f"A model has {f(row['billions'])} billion parameters, stored as {kind} "
            f"({row['bits']} bits each). How much memory do its weights take, in GB (10⁹ bytes)?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        per = row["bits"] / 8
        total = row["billions"] * 1e9 * per
        return [
            f"{row['bits']} bits = {f(per)} byte{'s' if per != 1 else ''} per parameter.",
            f"{f(row['billions'])} × 10⁹ parameters × {f(per)} = {_sci(total)} bytes.",
            f"÷ 10⁹ = {f(total / GB)} GB (the weights alone: no KV cache, activations or "
            "optimizer state).",
        ]


@dataclass(frozen=True)
class Run:
    name: str
    params: float
    tokens: float


RUNS = (
    Run("GPT-3", 175e9, 300e9),
    Run("Chinchilla", 70e9, 1.4e12),
    Run("Gopher", 280e9, 300e9),
    Run("Llama 2 7B", 7e9, 2e12),
)
RUN_INDEX = {r.name: i for i, r in enumerate(RUNS)}


class TrainingFlops(Family):
    name = "training_flops"
    title = "The compute of a training run"
    tolerance = Tolerance.relative(0.02)
    mistake_specs = (
        MistakeSpec(
            "forward_only",
            "2ND is the forward pass alone; the backward pass costs about twice as much again.",
        ),
        MistakeSpec("backward_only", "4ND is the backward pass; add the forward pass's 2ND."),
        MistakeSpec("no_factor", "N × D counts one multiply per parameter and token; it is 6ND."),
    )

    def draw(self, draws: Draws) -> Columns:
        named = draws.uniform() < 0.4
        run = draws.integers(0, len(RUNS) - 1)
        params = np.where(
            named,
            np.array([r.params for r in RUNS])[run],
            draws.pick([125e6, 350e6, 1.3e9, 7e9, 13e9, 34e9, 70e9]),
        )
        tokens = np.where(
            named,
            np.array([r.tokens for r in RUNS])[run],
            draws.pick([20e9, 100e9, 300e9, 1e12, 2e12, 15e12]),
        )
        return {"params": params, "tokens": tokens, "run": np.where(named, run, -1)}

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        nd = data["params"] * data["tokens"]
        return significant(6 * nd), {
            "forward_only": significant(2 * nd),
            "backward_only": significant(4 * nd),
            "no_factor": significant(nd),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        index = int(data["run"][i])
        return {
            "params": float(data["params"][i]),
            "tokens": float(data["tokens"][i]),
            "run": None if index < 0 else RUNS[index].name,
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        params = np.array([float(r["params"]) for r in rows], dtype=np.float64)
        tokens = np.array([float(r["tokens"]) for r in rows], dtype=np.float64)
        if (params <= 0).any() or (tokens <= 0).any():
            raise ValueError("params and tokens must be positive")
        runs = []
        for r in rows:
            name = r.get("run")
            if name is not None and name not in RUN_INDEX:
                raise ValueError(f"unknown run {name!r}")
            runs.append(-1 if name is None else RUN_INDEX[name])
        return {"params": params, "tokens": tokens, "run": np.array(runs, dtype=np.int64)}

    def prompt(self, row: Mapping[str, Any]) -> str:
        size, tokens = _amount(row["params"]), _amount(row["tokens"])
        if row["run"]:
            said = f"{row['run']} has about {size} parameters and was trained on {tokens} tokens."
        else:
            said = f"A dense transformer of {size} parameters is trained on {tokens} tokens."
        return f"{said} About how many FLOPs does the training take? Write it like 1.2e21."

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        n, d = row["params"], row["tokens"]
        return [
            "Each token costs about 2N FLOPs forward (a multiply and an add per parameter) "
            "and about 4N backward, 6N in all.",
            f"N = {_sci(n)} parameters and D = {_sci(d)} tokens.",
            f"C ≈ 6 × N × D = 6 × {_sci(n)} × {_sci(d)} = {_sci(6 * n * d)} FLOPs.",
        ]


class ChinchillaOptimal(Family):
    name = "chinchilla_optimal"
    title = "A compute-optimal model and its tokens"
    tolerance = Tolerance.relative(0.02)
    mistake_specs = (
        MistakeSpec(
            "tokens_for_params",
            "That is the number of tokens, 20 per parameter; the question asks for parameters.",
        ),
        MistakeSpec(
            "params_for_tokens",
            "That is the number of parameters; the tokens are about 20 per parameter.",
        ),
        MistakeSpec(
            "one_token_each",
            "That sets D = N; compute-optimal training uses about 20 tokens per parameter.",
        ),
        MistakeSpec("no_root", "C = 6ND = 120N², so N is the square root of C / 120."),
    )
    BUDGETS = (1e21, 1e22, 5.76e23, 1e24, 3e24, 1e25)
    BILLIONS = (1, 7, 13, 34, 70, 175)

    def draw(self, draws: Draws) -> Columns:
        return {
            "ask_params": draws.uniform() < 0.5,
            "budget": draws.pick(self.BUDGETS).astype(np.float64),
            "billions": draws.pick(self.BILLIONS).astype(np.float64),
        }

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        ask = data["ask_params"]
        optimal = np.sqrt(data["budget"] / 120) / 1e9  # parameters, in billions
        alone = np.sqrt(data["budget"] / 6) / 1e9  # D = N
        answer = np.where(ask, optimal, 20 * data["billions"])
        return significant(answer), {
            "tokens_for_params": np.where(ask, significant(20 * optimal), np.nan),
            "params_for_tokens": np.where(ask, np.nan, significant(data["billions"])),
            "one_token_each": np.where(ask, significant(alone), np.nan),
            "no_root": np.where(ask, significant(data["budget"] / 120 / 1e9), np.nan),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        if bool(data["ask_params"][i]):
            return {"ask": "params", "budget": float(data["budget"][i]), "billions": None}
        billions = float(data["billions"][i])
        whole = int(billions) if billions.is_integer() else billions
        return {"ask": "tokens", "budget": None, "billions": whole}

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        ask = [r["ask"] for r in rows]
        if any(a not in ("params", "tokens") for a in ask):
            raise ValueError("ask is 'params' or 'tokens'")
        budget = np.array([float(r.get("budget") or 1e21) for r in rows], dtype=np.float64)
        billions = np.array([float(r.get("billions") or 1) for r in rows], dtype=np.float64)
        if (budget <= 0).any() or (billions <= 0).any():
            raise ValueError("budget and billions must be positive")
        return {
            "ask_params": np.array([a == "params" for a in ask], dtype=np.bool_),
            "budget": budget,
            "billions": billions,
        }

    def prompt(self, row: Mapping[str, Any]) -> str:
        rule = (
            "Take the compute-optimal rule of thumb from Hoffmann et al. (2022), about 20 "
            "training tokens per parameter, and C ≈ 6ND."
        )
        if row["ask"] == "params":
            return (
                f"You have a training budget of {_sci(row['budget'])} FLOPs. {rule} How many "
                "parameters should the model have, in billions?"
            )
        return (
            f"You will train a dense model of {f(row['billions'])} billion parameters. {rule} "
            "On how many tokens should it be trained, in billions?"
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        if row["ask"] == "params":
            c = row["budget"]
            n = (c / 120) ** 0.5
            return [
                "With D = 20N, the budget is C = 6 × N × 20N = 120N².",
                f"N = √(C / 120) = √({_sci(c)} / 120) = {_sci(n)} parameters.",
                f"In billions: {f(n / 1e9)}; its tokens, 20N = {_sci(20 * n)}.",
            ]
        b = row["billions"]
        return [f"D ≈ 20 × N = 20 × {f(b)} billion = {f(20 * b)} billion tokens."]


class AttentionMlpFlops(Family):
    name = "attention_mlp_flops"
    title = "Attention's FLOPs per token against the MLP's"
    tolerance = Tolerance.absolute(0.006)  # two decimals, as asked
    places = 2
    mistake_specs = (
        MistakeSpec(
            "projections_only",
            "Count the scores and the weighted sum over the context too, not only Q, K, V and O.",
        ),
        MistakeSpec("scores_only", "The four projections cost FLOPs too: 8 × d_model² per token."),
        MistakeSpec("mlp_one_matrix", "The MLP has two matrices, up and down: 4 × ratio × d²."),
        MistakeSpec(
            "forgot_values",
            "After the scores (2 × T × d), the weighted sum of T values costs 2 × T × d again.",
        ),
    )

    def draw(self, draws: Draws) -> Columns:
        data = draw_width(draws, models=range(1, 6))
        data["context"] = draws.pick([512, 1024, 2048, 4096, 8192, 32_768])
        return data

    def solve(self, data: Columns) -> tuple[Floats, dict[str, Floats]]:
        d, r, t = (data[k].astype(np.float64) for k in ("d_model", "ratio", "context"))
        projections, scores, mlp = 8 * d * d, 4 * t * d, 4 * r * d * d
        return significant((projections + scores) / mlp), {
            "projections_only": significant(projections / mlp),
            "scores_only": significant(scores / mlp),
            "mlp_one_matrix": significant((projections + scores) / (mlp / 2)),
            "forgot_values": significant((projections + scores / 2) / mlp),
        }

    def row(self, data: Columns, i: int) -> dict[str, Any]:
        return {
            "d_model": int(data["d_model"][i]),
            "ratio": int(data["ratio"][i]),
            "context": int(data["context"][i]),
            "model": model_name(data, i),
        }

    def columns(self, rows: Sequence[Mapping[str, Any]]) -> Columns:
        columns = {
            "d_model": ints(rows, "d_model"),
            "ratio": ints(rows, "ratio", 4),
            "context": ints(rows, "context"),
            "model": np.array([model_index(r) for r in rows], dtype=np.int64),
        }
        if (columns["d_model"] <= 0).any() or (columns["ratio"] <= 0).any():
            raise ValueError("d_model and ratio must be positive")
        return columns

    def prompt(self, row: Mapping[str, Any]) -> str:
        return (
            f"{intro(row)} In one layer, a token attends to {f(row['context'])} tokens. Counting a "
            "multiply-add as 2 FLOPs, what is the ratio of attention's forward FLOPs for that "
            "token (the Q, K, V and output projections, the scores and the weighted sum of "
            "values) to the MLP's? Give two decimals."
        )

    def steps(self, row: Mapping[str, Any], answer: Expected) -> list[str]:
        d, r, t = row["d_model"], row["ratio"], row["context"]
        projections, scores, mlp = 8 * d * d, 4 * t * d, 4 * r * d * d
        return [
            f"Projections: four d × d matrices, 4 × 2 × {f(d)}² = {f(projections)} FLOPs.",
            f"Scores and weighted sum: 2 × {f(t)} × {f(d)} each, {f(scores)} FLOPs.",
            f"MLP: two matrices of {r} × d × d, 2 × 2 × {r} × {f(d)}² = {f(mlp)} FLOPs.",
            f"Ratio: ({f(projections)} + {f(scores)}) / {f(mlp)} = "
            f"{f((projections + scores) / mlp, places=2)}.",
        ]
