"""Random numbers for a whole batch of variants at once, each row keyed by its own seed.

A `numpy.random.Generator` streams one sequence, so rows drawn from a shared generator would
depend on their place in the batch. Here each row runs its own splitmix64 sequence, started
from its seed and the family's name: the same seed gives the same variant alone or as one row
of 100,000, and a whole batch is a handful of array operations.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

MAX_SEED = 2**63 - 1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_UNIT = 2.0**-53


def as_seeds(seeds: ArrayLike) -> NDArray[np.uint64]:
    """Check and convert seeds: a 1-D array of integers from 0 to 2**63 - 1."""
    if isinstance(seeds, list) and len(seeds) == 1 and type(seeds[0]) is int:  # one variant's seed
        if not 0 <= seeds[0] <= MAX_SEED:
            raise ValueError(f"seeds must be between 0 and {MAX_SEED}")
        return np.array(seeds, dtype=np.uint64)
    array = np.asarray(seeds)
    if array.ndim != 1:
        raise ValueError("seeds must be a one-dimensional array")
    if array.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if array.dtype == np.bool_ or array.dtype.kind not in "iuO":
        raise ValueError("seeds must be integers")
    if array.dtype.kind == "O" and not all(isinstance(s, int) for s in array.tolist()):
        raise ValueError("seeds must be integers")
    if int(array.min()) < 0 or int(array.max()) > MAX_SEED:
        raise ValueError(f"seeds must be between 0 and {MAX_SEED}")
    return array.astype(np.uint64)


def mix64(z: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The splitmix64 finalizer: a bijection on 64-bit words that scrambles every bit."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@functools.cache
def _salt_key(salt: str) -> np.uint64:
    digest = hashlib.blake2b(salt.encode(), digest_size=8).digest()
    return np.uint64(int.from_bytes(digest, "little"))


class Draws:
    """Per-row random draws for a batch. Each call takes fresh numbers from every row's stream.

    Without `k` a draw is one number per row, shape `(n,)`; with `k` it is `(n, k)`.
    """

    def __init__(self, seeds: NDArray[np.uint64], salt: str) -> None:
        self._start = mix64(seeds ^ _salt_key(salt))
        self._used = 0
        self.n = len(seeds)

    def bits(self, k: int | None = None) -> NDArray[np.uint64]:
        width = 1 if k is None else k
        steps = np.arange(self._used + 1, self._used + width + 1, dtype=np.uint64) * _GOLDEN
        self._used += width
        words = mix64(self._start[:, None] + steps[None, :])
        return words[:, 0] if k is None else words

    def uniform(self, k: int | None = None) -> NDArray[np.float64]:
        """Uniform on [0, 1), 53 random bits each."""
        return (self.bits(k) >> np.uint64(11)).astype(np.float64) * _UNIT

    def integers(self, low: int, high: int, k: int | None = None) -> NDArray[np.int64]:
        """Uniform integers from `low` to `high`, both included."""
        span = high - low + 1
        return np.floor(self.uniform(k) * span).astype(np.int64) + low

    def choice(self, weights: Sequence[float], k: int | None = None) -> NDArray[np.int64]:
        """Indices into `weights`, each drawn with probability proportional to its weight."""
        cumulative = np.cumsum(np.asarray(weights, dtype=np.float64))
        picked = np.searchsorted(cumulative / cumulative[-1], self.uniform(k), side="right")
        return np.minimum(picked, len(weights) - 1).astype(np.int64)

    def pick(self, options: Sequence[Any] | NDArray[Any], k: int | None = None) -> NDArray[Any]:
        """Equally likely picks from `options`, as an array of the options' values."""
        values = np.asarray(options)
        return values[self.integers(0, len(values) - 1, k)]
