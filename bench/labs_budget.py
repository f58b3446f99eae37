"""The near-orthogonal lab at the edge of its work budget: the slowest request anyone may send.

For widths from 2 to the largest allowed, it runs the lab with as many vectors as the budget
allows and prints the median and worst of several runs (target: every worst under 100 ms, a
small share of one worker's second).

    python -m bench.labs_budget
    OPENBLAS_NUM_THREADS=1 python -m bench.labs_budget   # as one busy worker sees it
"""

from __future__ import annotations

import statistics
import time

from engine import labs

TARGET_MS = 100
WIDTHS = (2, 100, 768, 1_000, 2_000, 4_096, 12_288, 50_000, labs.MAX_DIMS)


def main() -> None:
    worst_overall = 0.0
    for dims in WIDTHS:
        vectors = labs.max_vectors(dims)
        times = []
        for seed in range(9):
            start = time.perf_counter()
            labs.near_orthogonal(dims=dims, vectors=vectors, rng=seed)
            times.append((time.perf_counter() - start) * 1000)
        worst_overall = max(worst_overall, max(times))
        print(
            f"dims={dims:>7,} vectors={vectors:>4}: median {statistics.median(times):6.1f} ms, "
            f"worst {max(times):6.1f} ms"
        )
    verdict = "ok" if worst_overall < TARGET_MS else "over"
    print(f"worst {worst_overall:.1f} ms (target under {TARGET_MS} ms): {verdict}")


if __name__ == "__main__":
    main()
