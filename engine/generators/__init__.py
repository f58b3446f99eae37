"""Question families, keyed by name. Each makes numeric questions that are new every time.

Usage::

    family = get_family("relu_neuron")
    batch = family.generate(np.arange(100_000))  # arrays: data, answers, mistake values
    variant = family.variant(seed)  # one question: prompt, data, answer, steps, mistakes
    variant = family.pose({"w": [1, 1, 0], "b": -1, "x": [0.8, 0.9, 0.3]})  # given numbers
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from engine.generators.attention import AttentionSoftmax, ContextCost
from engine.generators.base import Batch, Family, MistakeSpec, Variant
from engine.generators.block_size import AttentionParams, BlockParams
from engine.generators.budgets import (
    AttentionMlpFlops,
    ChinchillaOptimal,
    KvCacheBytes,
    TrainingFlops,
    WeightMemory,
)
from engine.generators.draws import MAX_SEED
from engine.generators.geometry import NearOrthogonal
from engine.generators.mlp_size import MlpParams, MlpWeights
from engine.generators.model_size import ModelParams
from engine.generators.neurons import AndGateBias, GeluNeuron, ReluNeuron
from engine.generators.norms import LayerNorm
from engine.generators.toy_mlp import ToyMlpForward

_ALL: tuple[Family, ...] = (
    ReluNeuron(),
    GeluNeuron(),
    MlpWeights(),
    MlpParams(),
    AttentionParams(),
    BlockParams(),
    ModelParams(),
    AndGateBias(),
    ToyMlpForward(),
    AttentionSoftmax(),
    LayerNorm(),
    ContextCost(),
    NearOrthogonal(),
    KvCacheBytes(),
    WeightMemory(),
    TrainingFlops(),
    ChinchillaOptimal(),
    AttentionMlpFlops(),
)
FAMILIES: Mapping[str, Family] = MappingProxyType({f.name: f for f in _ALL})


def get_family(name: str) -> Family:
    """The family called `name`; `KeyError` naming the known ones otherwise."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"no question family {name!r}; known: {', '.join(FAMILIES)}") from None


__all__ = ["FAMILIES", "MAX_SEED", "Batch", "Family", "MistakeSpec", "Variant", "get_family"]
