"""Batch against one-at-a-time: how long 100,000 variants of each family take to make.

A batch is one `generate(seeds)` call; one at a time is `generate` on a batch of one per seed,
which yields the same data, answers and mistake values. Each line prints both times and their
ratio (target: the batch at least 50 times faster), then the cost of one full `variant(seed)`,
prompt and worked steps included, as served to a learner.

    python -m bench.engine_generate            # 100,000 variants each way
    python -m bench.engine_generate --single 10000   # one at a time on 10,000, scaled up
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from numpy.typing import NDArray

from engine.generators import FAMILIES, Family

RATIO_TARGET = 50
RELU_TARGET_SECONDS = 0.5


def _seconds(work: Callable[[], object], repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000, help="variants per family")
    parser.add_argument(
        "--single", type=int, default=None, help="variants made one at a time (default: --count)"
    )
    args = parser.parse_args()
    count, single = args.count, args.single or args.count
    seeds = np.arange(count, dtype=np.uint64)
    scale = "" if single == count else f" (measured on {single:,}, scaled)"

    print(f"{count:,} variants per family; one at a time{scale}")
    print(f"{'family':<18} {'batch':>9} {'one at a time':>14} {'ratio':>7} {'variant()':>11}")
    ratios: dict[str, float] = {}
    batches: dict[str, float] = {}
    for name, family in FAMILIES.items():
        family.generate(seeds[:100])  # warm caches outside the timing
        batch = _seconds(partial(family.generate, seeds), repeat=3)
        one = _seconds(partial(_one_at_a_time, family, seeds[:single])) * count / single
        served = _seconds(partial(_served, family, 1_000)) / 1_000
        ratio = ratios[name] = one / batch
        batches[name] = batch
        flag = "" if ratio >= RATIO_TARGET else "  below target"
        print(f"{name:<18} {batch:8.3f}s {one:13.2f}s {ratio:6.0f}x {served * 1e6:8.0f} µs{flag}")

    relu = batches["relu_neuron"]
    verdict = "met" if relu < RELU_TARGET_SECONDS else "MISSED"
    print(
        f"\nrelu_neuron: {count:,} variants with answers and mistake values in {relu:.3f} s"
        f" (target < {RELU_TARGET_SECONDS} s: {verdict})"
    )
    every = all(r >= RATIO_TARGET for r in ratios.values())
    print(f"batch at least {RATIO_TARGET}x faster for every family: {'yes' if every else 'no'}")


def _one_at_a_time(family: Family, seeds: NDArray[np.uint64]) -> None:
    for i in range(len(seeds)):
        family.generate(seeds[i : i + 1])


def _served(family: Family, count: int) -> None:
    for seed in range(count):
        family.variant(seed)


if __name__ == "__main__":
    main()
