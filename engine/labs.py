"""The computations behind the lessons' interactive demos, for the REST layer to serve.

Each lab checks its inputs and raises `LabInputError` (a `ValueError`) with a message a person
can act on; results have `to_dict()` for JSON.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import special

from engine.answer_key import exact_fraction
from engine.answers import Refusal, read_number
from engine.counting import ModelShape, ParameterCount, count_parameters

Activation = Literal["relu", "gelu"]
MAX_NEURON_INPUTS = 64
# Every number a lab takes is bounded, so no product or sum overflows a float.
MAX_MAGNITUDE = 1_000_000

# The near-orthogonal lab is bounded by the work it does, not by each input alone, counted in
# multiply-adds: drawing one random number costs about DRAW_COST of them, and each pair one
# dot product of `dims` terms plus about PAIR_COST to make it an angle and count it. That is
# the work of drawing every coordinate, which the lab does below as many dimensions as
# vectors, and there the budget keeps a request to a few tens of milliseconds; at or above it
# the lab draws only what the angles depend on (`_directions`), so the same inputs take far
# less (122 vectors at GPT-3's width, 12,288, the most the budget allows there: about 1 ms).
WORK_BUDGET = 250_000_000
DRAW_COST, PAIR_COST = 100, 1_000
MIN_DIMS, MAX_DIMS = 2, 100_000


def near_orthogonal_work(dims: int, vectors: int) -> int:
    """The work of comparing `vectors` random directions in `dims` dimensions."""
    pairs = vectors * (vectors - 1) // 2
    return DRAW_COST * vectors * dims + pairs * (dims + PAIR_COST)


def max_vectors(dims: int) -> int:
    """The most vectors within the work budget at `dims` dimensions."""
    low, high = 2, 2
    while near_orthogonal_work(dims, high * 2) <= WORK_BUDGET:
        high *= 2
    high *= 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (
            (middle, high) if near_orthogonal_work(dims, middle) <= WORK_BUDGET else (low, middle)
        )
    return low


MAX_VECTORS = max_vectors(MIN_DIMS)


class LabInputError(ValueError):
    """An input a lab can't work with; the message says what to change."""


def _exact(value: float | int | str | Fraction | Decimal, name: str) -> Fraction:
    """An input as an exact number; text is read the way typed answers are."""
    if isinstance(value, str):
        read = read_number(value)
        if isinstance(read, Refusal):
            raise LabInputError(f"{name}: {read.message}")
        return read.value
    try:
        if isinstance(value, bool):
            raise TypeError
        return exact_fraction(value) if isinstance(value, float) else Fraction(value)
    except (ValueError, TypeError, OverflowError):
        raise LabInputError(f"{name} must be a finite number") from None


def _bounded(value: Fraction, name: str) -> Fraction:
    if abs(value) > MAX_MAGNITUDE:
        raise LabInputError(f"{name} must be from -{MAX_MAGNITUDE:,} to {MAX_MAGNITUDE:,}")
    return value


@dataclass(frozen=True)
class NeuronSteps:
    """One neuron worked through: each product w_i · x_i, their sum, the bias, z, the output.

    Sums are exact (the lecture's neuron gives exactly 0.7); GELU's output is a float.
    """

    activation: Activation
    products: list[Fraction]
    weighted_sum: Fraction
    bias: Fraction
    pre_activation: Fraction
    output: Fraction | float

    def to_dict(self) -> dict[str, Any]:
        return {
            "activation": self.activation,
            "products": [float(p) for p in self.products],
            "sum": float(self.weighted_sum),
            "bias": float(self.bias),
            "pre_activation": float(self.pre_activation),
            "output": float(self.output),
        }


def neuron(
    *,
    w: Sequence[float | int | str | Fraction | Decimal],
    b: float | int | str | Fraction | Decimal,
    x: Sequence[float | int | str | Fraction | Decimal],
    activation: Activation = "relu",
) -> NeuronSteps:
    """One neuron step by step: z = w · x + b, then ReLU(z) = max(0, z) or GELU(z) = z · Φ(z)."""
    if activation not in ("relu", "gelu"):
        raise LabInputError("activation must be relu or gelu")
    if not w or len(w) != len(x):
        raise LabInputError("w and x need the same number of entries, at least one")
    if len(w) > MAX_NEURON_INPUTS:
        raise LabInputError(f"at most {MAX_NEURON_INPUTS} inputs")
    weights = [_bounded(_exact(v, "w"), "w") for v in w]
    inputs = [_bounded(_exact(v, "x"), "x") for v in x]
    bias = _bounded(_exact(b, "b"), "b")
    products = [a * c for a, c in zip(weights, inputs, strict=True)]
    total = sum(products, Fraction(0))
    z = total + bias
    output: Fraction | float
    if activation == "relu":
        output = max(z, Fraction(0))
    else:
        output = float(z) * 0.5 * (1 + math.erf(float(z) / math.sqrt(2)))
    return NeuronSteps(activation, products, total, bias, z, output)


def parameters(
    *,
    d_model: int,
    layers: int,
    vocab: int,
    context: int = 0,
    ratio: int = 4,
    biases: bool = True,
    tied: bool = True,
    norms: bool = True,
) -> ParameterCount:
    """A GPT-2-style model's parameters, part by part, with the convention spelled out.

    `context` > 0 counts learned position embeddings for that many positions; `norms` counts two
    layer norms per block and a final one. GPT-2 small (768, 12 blocks, vocab 50,257, context
    1,024, defaults otherwise) has 124,439,808; the GPT-3 lecture tally (12,288, 96 blocks,
    no context, no biases, untied, no norms) has 175,181,291,520.
    """
    limits = {"d_model": (d_model, 1, 100_000), "layers": (layers, 1, 1_000)}
    limits |= {"vocab": (vocab, 1, 10_000_000), "context": (context, 0, 10_000_000)}
    limits |= {"ratio": (ratio, 1, 64)}
    for name, (value, low, high) in limits.items():
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise LabInputError(f"{name} must be a whole number from {low:,} to {high:,}")
    shape = ModelShape(
        d_model=d_model,
        layers=layers,
        vocab=vocab,
        context=context,
        ratio=ratio,
        biases=biases,
        tied=tied,
        block_norms=norms,
        final_norm=norms,
    )
    return count_parameters(shape)


def over_budget(dims: int, vectors: int) -> str:
    """Why a near-orthogonal request is refused, and what would fit."""
    return (
        f"vectors: {vectors:,} vectors in {dims:,} dimensions is more work than one request "
        f"may do ({DRAW_COST} × dims × vectors + (dims + {PAIR_COST:,}) × pairs must be at most "
        f"{WORK_BUDGET:,}); at {dims:,} dimensions, use at most {max_vectors(dims):,} vectors"
    )


@dataclass(frozen=True)
class AngleHistogram:
    """Pairwise angles between random directions: counts per bin and a summary."""

    dims: int
    vectors: int
    bin_edges: list[float]
    counts: list[int]
    mean_degrees: float
    std_degrees: float
    min_degrees: float
    max_degrees: float
    within_5_degrees_of_90: float  # share of pairs between 85° and 95°
    within_1_degree_of_90: float = 0.0  # between 89° and 91°
    within_10_degrees_of_90: float = 0.0  # between 80° and 100°

    @property
    def pairs(self) -> int:
        return self.vectors * (self.vectors - 1) // 2

    @property
    def expected_std_degrees(self) -> float:
        """The spread theory predicts: about 1/√N radians."""
        return math.degrees(1 / math.sqrt(self.dims))

    def to_dict(self) -> dict[str, Any]:
        return {
            "dims": self.dims,
            "vectors": self.vectors,
            "pairs": self.pairs,
            "bin_edges": self.bin_edges,
            "counts": self.counts,
            "summary": {
                "mean_degrees": self.mean_degrees,
                "std_degrees": self.std_degrees,
                "min_degrees": self.min_degrees,
                "max_degrees": self.max_degrees,
                "within_5_degrees_of_90": self.within_5_degrees_of_90,
                "within_1_degree_of_90": self.within_1_degree_of_90,
                "within_10_degrees_of_90": self.within_10_degrees_of_90,
                "expected_std_degrees": self.expected_std_degrees,
            },
        }


def near_orthogonal(
    *, dims: int, vectors: int, rng: np.random.Generator | int, bins: int = 90
) -> AngleHistogram:
    """Random unit vectors in `dims` dimensions and the histogram of angles between all pairs.

    `rng` is a numpy Generator, or a seed for one; nothing here touches global randomness.
    Bins split 0° to 180° evenly.
    """
    if isinstance(dims, bool) or not isinstance(dims, int) or not MIN_DIMS <= dims <= MAX_DIMS:
        raise LabInputError(f"dims must be a whole number from {MIN_DIMS} to {MAX_DIMS:,}")
    if isinstance(vectors, bool) or not isinstance(vectors, int) or vectors < 2:
        raise LabInputError("vectors must be a whole number, at least 2")
    if near_orthogonal_work(dims, vectors) > WORK_BUDGET:
        raise LabInputError(over_budget(dims, vectors))
    if not 1 <= bins <= 360:
        raise LabInputError("bins must be from 1 to 360")
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    points = _directions(generator, dims=dims, vectors=vectors)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    upper = np.triu_indices(vectors, k=1)
    cosines = np.clip((points @ points.T)[upper].astype(np.float64), -1.0, 1.0)
    angles = np.degrees(np.arccos(cosines))
    counts, edges = np.histogram(angles, bins=bins, range=(0.0, 180.0))
    return AngleHistogram(
        dims=dims,
        vectors=vectors,
        bin_edges=[float(e) for e in edges],
        counts=[int(c) for c in counts],
        mean_degrees=float(angles.mean()),
        std_degrees=float(angles.std()),
        min_degrees=float(angles.min()),
        max_degrees=float(angles.max()),
        within_5_degrees_of_90=float(np.mean(np.abs(angles - 90.0) <= 5.0)),
        within_1_degree_of_90=float(np.mean(np.abs(angles - 90.0) <= 1.0)),
        within_10_degrees_of_90=float(np.mean(np.abs(angles - 90.0) <= 10.0)),
    )


def _directions(
    generator: np.random.Generator, *, dims: int, vectors: int
) -> NDArray[np.floating[Any]]:
    """`vectors` random directions (not yet of unit length) whose angles are distributed as
    those of independent Gaussian vectors in `dims` dimensions.

    With at least as many dimensions as vectors, the vectors are drawn in the basis that
    Gram-Schmidt would give them (Bartlett's decomposition of the Wishart distribution): the
    i-th has i coordinates, the last the root of a chi-squared draw with dims - i + 1 degrees
    of freedom, the others standard normal. Their dot products have exactly the law of the
    full vectors', from vectors² / 2 draws instead of vectors x dims: at 100,000 dimensions
    a request no longer draws 2.2 million numbers for 231 angles. With fewer dimensions the
    coordinates are drawn as they are, in single precision (a cosine's error near 1e-6, far
    finer than a bin)."""
    if dims < vectors:
        return generator.standard_normal((vectors, dims), dtype=np.float32)
    basis = np.tril(generator.standard_normal((vectors, vectors)), k=-1)
    freedom = dims - np.arange(vectors)
    basis[np.diag_indices(vectors)] = np.sqrt(generator.chisquare(freedom))
    return basis


def _angle_cdf(dims: int, degrees: NDArray[np.float64]) -> NDArray[np.float64]:
    """The chance that two random directions meet at no more than `degrees`: for directions
    drawn uniformly, (1 + cos θ) / 2 follows Beta((d − 1) / 2, (d − 1) / 2)."""
    half = (dims - 1) / 2
    x = (1 + np.cos(np.radians(degrees))) / 2
    return np.asarray(1 - special.betainc(half, half, x), dtype=np.float64)


def angle_shares(dims: int, bin_edges: Sequence[float]) -> list[float]:
    """The share of all pairs of random directions whose angle falls in each bin: what the
    histogram tends to as there are more vectors."""
    if isinstance(dims, bool) or not isinstance(dims, int) or not MIN_DIMS <= dims <= MAX_DIMS:
        raise LabInputError(f"dims must be a whole number from {MIN_DIMS} to {MAX_DIMS:,}")
    cdf = _angle_cdf(dims, np.asarray(bin_edges, dtype=np.float64))
    return [float(share) for share in np.clip(np.diff(cdf), 0.0, 1.0)]


def share_within(dims: int, degrees: float) -> float:
    """The chance that two random directions meet within `degrees` of 90°."""
    low, high = _angle_cdf(dims, np.array([90.0 - degrees, 90.0 + degrees]))
    return float(high - low)


def perpendicular_bound(dims: int, degrees: float) -> float:
    """At most this share of pairs of random directions meets further than `degrees` from
    90°: each cap of the sphere where cos θ exceeds ε = sin(degrees) has measure at most
    e^(−d ε² / 2) (Ball, An Elementary Introduction to Modern Convex Geometry, lemma 2.2), the
    concentration behind the Johnson–Lindenstrauss lemma."""
    epsilon = math.sin(math.radians(degrees))
    return min(1.0, 2 * math.exp(-dims * epsilon * epsilon / 2))


def perpendicular_bound_log10(dims: int, degrees: float) -> float:
    """log10 of `perpendicular_bound`, which underflows to 0 in many dimensions (at 100,000
    and 10° it is about 10^-654): never above 0."""
    epsilon = math.sin(math.radians(degrees))
    return min(0.0, math.log10(2) - dims * epsilon * epsilon / (2 * math.log(10)))


def directions_that_fit_log10(dims: int, degrees: float) -> float:
    """log10 of a number N of random directions that, more likely than not, has every pair
    within `degrees` of 90°: N²/2 pairs times the bound stays under 1/2 while
    N ≤ e^(d ε² / 4) / √2 (a union bound over the pairs; the truth is more)."""
    epsilon = math.sin(math.radians(degrees))
    return dims * epsilon * epsilon / (4 * math.log(10)) - math.log10(math.sqrt(2))


# --- ReLU as an AND gate, and GELU ---------------------------------------------------------

GATE_INPUTS = ((0, 0), (1, 0), (0, 1), (1, 1))
MAX_SCALE, MAX_BIAS = 10, 10


def gelu(z: float) -> float:
    """GELU(z) = z · Φ(z), Φ the standard normal CDF (exact, not the tanh approximation)."""
    return z * 0.5 * (1 + math.erf(z / math.sqrt(2)))


def gelu_minimum() -> tuple[float, float]:
    """Where GELU is lowest and its value there: GELU'(z) = Φ(z) + z · φ(z) = 0, solved by
    Newton's method from z = −0.75 (GELU''(z) = φ(z) · (2 − z²))."""
    z = -0.75
    for _ in range(50):
        phi = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
        slope = 0.5 * (1 + math.erf(z / math.sqrt(2))) + z * phi
        step = slope / (phi * (2 - z * z))
        z -= step
        if abs(step) < 1e-15:
            break
    return z, gelu(z)


@dataclass(frozen=True)
class GateRow:
    a: int
    b: int
    pre_activation: Fraction
    output: float

    @property
    def fires(self) -> bool:
        return self.output > 0


@dataclass(frozen=True)
class Gate:
    """A neuron whose row is `scale` × (A + B), for inputs holding A and B each 0 or 1."""

    scale: Fraction
    bias: Fraction
    activation: Activation
    rows: list[GateRow]

    @property
    def and_low(self) -> Fraction:
        """The AND gate's biases are (−2 · scale, −scale]: both present fire, one alone
        does not (ReLU; GELU is never exactly 0, so for it the same interval makes the
        outputs negative or tiny rather than 0)."""
        return -2 * self.scale

    @property
    def and_high(self) -> Fraction:
        return -self.scale

    @property
    def kind(self) -> str:
        """What the neuron computes, read from when its ReLU fires: "and", "or", "always",
        "never" (or "other")."""
        fires = tuple(self.pre_activation_positive())
        kinds: dict[tuple[bool, ...], str] = {
            (False, False, False, True): "and",
            (False, True, True, True): "or",
            (True, True, True, True): "always",
            (False, False, False, False): "never",
        }
        return kinds.get(fires, "other")

    def pre_activation_positive(self) -> list[bool]:
        return [row.pre_activation > 0 for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        low, value = gelu_minimum()
        return {
            "scale": float(self.scale),
            "bias": float(self.bias),
            "activation": self.activation,
            "rows": [
                {
                    "a": r.a,
                    "b": r.b,
                    "pre_activation": float(r.pre_activation),
                    "output": r.output,
                    "fires": r.pre_activation > 0,
                }
                for r in self.rows
            ],
            "kind": self.kind,
            "and_interval": {"low": float(self.and_low), "high": float(self.and_high)},
            "gelu_minimum": {"z": low, "value": value},
        }


def gate(
    *,
    scale: float | int | str | Fraction | Decimal = 1,
    bias: float | int | str | Fraction | Decimal,
    activation: Activation = "relu",
) -> Gate:
    """The truth table of ReLU(scale · (A + B) + bias), or GELU's, for A and B each 0 or 1."""
    if activation not in ("relu", "gelu"):
        raise LabInputError("activation must be relu or gelu")
    s = _exact(scale, "scale")
    if not 0 < s <= MAX_SCALE:
        raise LabInputError(f"scale must be above 0 and at most {MAX_SCALE}")
    b = _exact(bias, "bias")
    if abs(b) > MAX_BIAS:
        raise LabInputError(f"bias must be from -{MAX_BIAS} to {MAX_BIAS}")
    rows = []
    for a, c in GATE_INPUTS:
        z = s * (a + c) + b
        output = float(max(z, Fraction(0))) if activation == "relu" else gelu(float(z))
        rows.append(GateRow(a, c, z, output))
    return Gate(s, b, activation, rows)


def activation_curves(
    low: float = -4, high: float = 4, points: int = 161
) -> dict[str, list[float]]:
    """ReLU and GELU sampled from `low` to `high`, for drawing them together."""
    z = np.linspace(low, high, points)
    gelu_values = z * special.ndtr(z)
    return {
        "z": [float(v) for v in z],
        "relu": [float(v) for v in np.maximum(z, 0)],
        "gelu": [float(v) for v in gelu_values],
    }


# --- The dot product as a question -----------------------------------------------------------

DIRECTIONS = ("Michael", "Jordan", "Phelps", "other stuff")
"""Perpendicular feature directions of length 1, the last standing for everything else."""
QUESTIONS = {
    "michael": ("Michael?", (1, 0, 0, 0)),
    "jordan": ("Jordan?", (0, 1, 0, 0)),
    "michael-jordan": ("Michael + Jordan?", (1, 1, 0, 0)),
}
PEOPLE = {
    "michael-jordan": ("Michael Jordan", (1, 1, 0)),
    "michael-phelps": ("Michael Phelps", (1, 0, 1)),
    "jordan-country": ("Jordan (the country)", (0, 1, 0)),
}
MAX_OTHER = 10


def dot_question(
    *,
    question: str,
    person: str,
    bias: float | int | str | Fraction | Decimal = -1,
    other: float | int | str | Fraction | Decimal = Fraction(1, 2),
) -> dict[str, Any]:
    """One row of W↑ asking a token's vector a question: z = row · x + bias, ReLU(z), and the
    picture of it in the plane the two vectors span (the row along the first axis, the vector
    at its angle, the vector's shadow on the row, whose length is row · x / |row|). The
    "other stuff" is perpendicular to every question, so it changes the vector's length and
    angle but never the shadow or z."""
    if question not in QUESTIONS:
        raise LabInputError(f"question must be one of {', '.join(QUESTIONS)}")
    if person not in PEOPLE:
        raise LabInputError(f"person must be one of {', '.join(PEOPLE)}")
    amount = _exact(other, "other")
    if not 0 <= amount <= MAX_OTHER:
        raise LabInputError(f"other must be from 0 to {MAX_OTHER}")
    label, row = QUESTIONS[question]
    name, features = PEOPLE[person]
    vector = [Fraction(f) for f in features] + [amount]
    steps = neuron(w=list(row), b=bias, x=vector)
    row_length = math.sqrt(sum(r * r for r in row))
    vector_length = math.sqrt(float(sum(v * v for v in vector)))
    dot = float(steps.weighted_sum)
    cosine = dot / (row_length * vector_length) if vector_length else 0.0
    return {
        "question": {"key": question, "label": label, "row": list(row)},
        "person": {"key": person, "name": name, "vector": [float(v) for v in vector]},
        "directions": list(DIRECTIONS),
        **steps.to_dict(),
        "fires": steps.pre_activation > 0,
        "geometry": {
            "row_length": row_length,
            "vector_length": vector_length,
            "angle_degrees": math.degrees(math.acos(max(-1.0, min(1.0, cosine)))),
            "shadow": dot / row_length,
        },
    }


# --- A toy MLP that stores facts ------------------------------------------------------------

TOY_DIRECTIONS = (
    "Michael", "Jordan", "Phelps", "country", "basketball", "Bulls", "swimming", "Middle East",
)  # fmt: skip
"""Eight perpendicular directions of length 1: four the token may hold, four a fact writes."""
TOY_READS = TOY_DIRECTIONS[:4]
TOY_WRITES = TOY_DIRECTIONS[4:]


@dataclass(frozen=True)
class ToyNeuron:
    name: str
    asks: tuple[str, ...]
    bias: Fraction
    writes: tuple[str, ...]
    fact: str

    def row(self) -> list[Fraction]:
        return [Fraction(int(d in self.asks)) for d in TOY_DIRECTIONS]

    def column(self) -> list[Fraction]:
        return [Fraction(int(d in self.writes)) for d in TOY_DIRECTIONS]


TOY_NEURONS = (
    ToyNeuron(
        "N1",
        ("Michael", "Jordan"),
        Fraction(-1),
        ("basketball", "Bulls"),
        "Michael Jordan → basketball, Bulls",
    ),
    ToyNeuron(
        "N2", ("Michael", "Phelps"), Fraction(-1), ("swimming",), "Michael Phelps → swimming"
    ),
    ToyNeuron(
        "N3",
        ("Jordan", "country"),
        Fraction(-1),
        ("Middle East",),
        "Jordan (country) → Middle East",
    ),
)
"""One AND neuron per fact: its row of W↑ asks for two features, its bias of −1 makes one
alone not enough, its column of W↓ is what the fact adds."""
TOY_TOKENS = {
    "michael-jordan": ("Michael Jordan", {"Michael": Fraction(9, 10), "Jordan": Fraction(1)}),
    "michael-phelps": ("Michael Phelps", {"Michael": Fraction(1), "Phelps": Fraction(4, 5)}),
    "jordan-country": ("Jordan (the country)", {"Jordan": Fraction(1), "country": Fraction(7, 10)}),
    "jordan": ("Jordan alone", {"Jordan": Fraction(1)}),
}
"""The token's vector after attention: how much of each direction it holds ("Jordan alone":
no first name came before it)."""


def toy_mlp(*, token: str, broken: str | None = None) -> dict[str, Any]:
    """The toy MLP on one token's vector, every step: each neuron's z = row · x + b, ReLU(z),
    what its column of W↓ adds scaled by that, the MLP's output and x plus it (the residual
    add), and the facts that come out (the written directions the result holds). `broken`
    names a neuron whose bias is set to 0, so that it no longer needs both its features."""
    if token not in TOY_TOKENS:
        raise LabInputError(f"token must be one of {', '.join(TOY_TOKENS)}")
    names = {n.name.lower(): n for n in TOY_NEURONS}
    if broken is not None and broken not in names:
        raise LabInputError(f"broken must be one of {', '.join(names)}, or left out")
    label, holds = TOY_TOKENS[token]
    x = [holds.get(d, Fraction(0)) for d in TOY_DIRECTIONS]
    added = [Fraction(0)] * len(TOY_DIRECTIONS)
    neurons = []
    for unit in TOY_NEURONS:
        is_broken = broken == unit.name.lower()
        steps = neuron(w=unit.row(), b=Fraction(0) if is_broken else unit.bias, x=x)
        h = Fraction(steps.output)
        adds = [h * c for c in unit.column()]
        added = [a + b for a, b in zip(added, adds, strict=True)]
        neurons.append(
            {
                "name": unit.name,
                "fact": unit.fact,
                "asks": list(unit.asks),
                "writes": list(unit.writes),
                "row": [float(v) for v in unit.row()],
                "column": [float(v) for v in unit.column()],
                "broken": is_broken,
                **steps.to_dict(),
                "fires": steps.pre_activation > 0,
                "adds": [float(v) for v in adds],
            }
        )
    result = [a + b for a, b in zip(x, added, strict=True)]
    return {
        "token": {"key": token, "name": label, "vector": [float(v) for v in x]},
        "directions": list(TOY_DIRECTIONS),
        "broken": broken,
        "neurons": neurons,
        "mlp_output": [float(v) for v in added],
        "result": [float(v) for v in result],
        "facts": [
            {"direction": d, "amount": float(v)}
            for d, v in zip(TOY_DIRECTIONS, result, strict=True)
            if d in TOY_WRITES and v > 0
        ],
    }


# --- The residual stream with switches -------------------------------------------------------

STREAM_DIRECTIONS = ("Michael", "Jordan", "basketball", "Bulls", "NBA")
"""Five perpendicular directions of length 1. The token is "Jordan", right after "Michael"."""


@dataclass(frozen=True)
class StreamPart:
    key: str
    block: int
    kind: Literal["attention", "mlp"]
    does: str
    adds: tuple[tuple[str, Fraction], ...] = ()
    """Attention: what it copies in from the tokens before, the same whatever the stream holds."""
    asks: tuple[str, ...] = ()
    writes: str = ""
    """MLP: one AND neuron, ReLU(sum of `asks` − 1), writing that much of `writes`."""


STREAM_PARTS = (
    StreamPart(
        "attention-1",
        1,
        "attention",
        "copies Michael in from the token before",
        adds=(("Michael", Fraction(1)),),
    ),
    StreamPart(
        "mlp-1", 1, "mlp", "Michael and Jordan → basketball", asks=("Michael", "Jordan"),
        writes="basketball",
    ),
    StreamPart("attention-2", 2, "attention", "finds nothing more to bring in"),
    StreamPart(
        "mlp-2", 2, "mlp", "Michael and basketball → Bulls", asks=("Michael", "basketball"),
        writes="Bulls",
    ),
    StreamPart("attention-3", 3, "attention", "finds nothing more to bring in"),
    StreamPart(
        "mlp-3", 3, "mlp", "Jordan and basketball → NBA", asks=("Jordan", "basketball"),
        writes="NBA",
    ),
)  # fmt: skip
STREAM_PART_KEYS = tuple(part.key for part in STREAM_PARTS)
STREAM_WORDS = ("basketball", "baseball", "golf")
"""Words "Michael Jordan plays" could go on with. Each scores 1, and basketball 3 more for each
unit of the basketball direction the stream ends with; softmax makes the scores chances."""


def residual_stream(*, off: Sequence[str] = ()) -> dict[str, Any]:
    """The token's vector through three blocks, each adding attention's part and then the MLP's
    to it (x ← x + Attention(x), x ← x + MLP(x)); a part switched `off` adds nothing. Gives the
    vector after every part, each MLP neuron's z and output, and what the stream ends up
    predicting for the next word."""
    unknown = [key for key in off if key not in STREAM_PART_KEYS]
    if unknown:
        parts = ", ".join(STREAM_PART_KEYS)
        raise LabInputError(f"off: {unknown[0]!r} is not a part; the parts are {parts}")
    x = {d: Fraction(0) for d in STREAM_DIRECTIONS}
    x["Jordan"] = Fraction(1)
    embedding = [float(x[d]) for d in STREAM_DIRECTIONS]
    stages = []
    for part in STREAM_PARTS:
        on = part.key not in off
        adds = {d: Fraction(0) for d in STREAM_DIRECTIONS}
        neuron_steps: dict[str, float] | None = None
        if part.kind == "attention":
            for direction, amount in part.adds:
                adds[direction] = amount
        else:
            z = sum((x[d] for d in part.asks), Fraction(0)) - 1
            adds[part.writes] = max(z, Fraction(0))
            neuron_steps = {"pre_activation": float(z), "output": float(max(z, Fraction(0)))}
        if on:
            x = {d: x[d] + adds[d] for d in STREAM_DIRECTIONS}
        stages.append(
            {
                "part": part.key,
                "block": part.block,
                "kind": part.kind,
                "does": part.does,
                "on": on,
                "asks": list(part.asks),
                "writes": part.writes or None,
                "neuron": neuron_steps,
                "adds": [float(adds[d]) if on else 0.0 for d in STREAM_DIRECTIONS],
                "after": [float(x[d]) for d in STREAM_DIRECTIONS],
            }
        )
    scores = np.ones(len(STREAM_WORDS))
    scores[STREAM_WORDS.index("basketball")] += 3 * float(x["basketball"])
    chances = np.exp(scores - scores.max())
    chances /= chances.sum()
    return {
        "directions": list(STREAM_DIRECTIONS),
        "embedding": embedding,
        "off": [key for key in STREAM_PART_KEYS if key in off],
        "stages": stages,
        "final": [float(x[d]) for d in STREAM_DIRECTIONS],
        "prediction": [
            {"word": w, "score": float(s), "chance": float(c)}
            for w, s, c in zip(STREAM_WORDS, scores, chances, strict=True)
        ],
    }
