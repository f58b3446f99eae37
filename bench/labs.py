"""Each lab's page at its largest allowed input: the server's time for a first request (the
engine computes) and for the same request again (from the cache), and their ratio.

Runs the pages in-process with Django's test client, so the time is the server's alone
(middleware, the engine, the template, the SVG), not the network's. Each first request has
inputs no earlier request of the run had, and the run keys the cache with a prefix of its own,
so a first request is never a cache hit.

    .venv/bin/python -m bench.labs            # [--rounds 15]; REDIS_URL=... to use Redis

Target: every first request at most 50 ms (near-orthogonal at 12,288 dimensions included).
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import time
from collections.abc import Callable

TARGET_MS = 50.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="0",
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="WARNING",
        THROTTLE_LABS_ANONYMOUS="1000000/min",
        THROTTLE_LABS="1000000/min",
    )
    import django

    django.setup()
    from django.core.cache import cache
    from django.test import Client

    from engine import labs

    # A key prefix of this run's own, so nothing an earlier run (or the site) cached is hit.
    cache.key_prefix = f"bench-labs-{secrets.token_hex(8)}"
    client = Client()
    largest = labs.max_vectors(labs.MAX_DIMS)
    gpt3 = labs.max_vectors(12_288)
    tokens, broken = list(labs.TOY_TOKENS), ["", "n1", "n2", "n3"]
    # Each lab's heaviest request, the n-th of them made fresh.
    cases: dict[str, Callable[[int], str]] = {
        "dot product": lambda n: (
            f"/labs/dot-product/?question=michael-jordan&person=michael-phelps"
            f"&bias={-2 + (n % 30) / 10:.1f}&other=3"
        ),
        "parameter counter": lambda n: (
            f"/labs/parameters/?d_model=16384&layers={1000 - n}&ratio=64&vocab=10000000"
            "&context=10000000&biases=on&norms=on"
        ),
        # Every step shown; the n-th of the 16 tokens and broken biases (rounds past 16 repeat).
        "toy MLP, step 5": lambda n: (
            f"/labs/toy-mlp/?token={tokens[n % 4]}&broken={broken[n // 4 % 4]}&step=5"
        ),
        # The n-th of the 64 ways to set the six switches.
        "residual stream": lambda n: (
            "/labs/residual-stream/?switches=1"
            + "".join(f"&on={key}" for i, key in enumerate(labs.STREAM_PART_KEYS) if n >> i & 1)
        ),
        "AND gate (GELU)": lambda n: (
            f"/labs/and-gate/?bias={-5 + n * 0.05:.2f}&scale=2&activation=gelu"
        ),
        "near-orthogonal, 12,288 dims": lambda n: (
            f"/labs/near-orthogonal/?dims=12288&vectors={gpt3}&seed={n + 1}"
        ),
        f"near-orthogonal, {labs.MAX_DIMS:,} dims": lambda n: (
            f"/labs/near-orthogonal/?dims={labs.MAX_DIMS}&vectors={largest}&seed={n + 1}"
        ),
    }

    def timed(path: str) -> float:
        start = time.perf_counter()
        response = client.get(path)
        elapsed = (time.perf_counter() - start) * 1000
        assert response.status_code == 200, (path, response.status_code)
        return elapsed

    timed("/labs/parameters/")  # templates and URLs loaded once
    print(f"{'lab':<32} {'first (ms)':>11} {'repeat (ms)':>12} {'repeat/first':>13}")
    worst = 0.0
    for name, path_of in cases.items():
        first, repeat = [], []
        for n in range(rounds):
            path = path_of(n)
            first.append(timed(path))
            repeat.append(timed(path))
        median_first, median_repeat = statistics.median(first), statistics.median(repeat)
        worst = max(worst, median_first)
        print(
            f"{name:<32} {median_first:>11.1f} {median_repeat:>12.1f} "
            f"{median_repeat / median_first:>13.2f}"
        )
    verdict = "ok" if worst <= TARGET_MS else "over"
    print(f"slowest first request {worst:.1f} ms (target at most {TARGET_MS:g} ms): {verdict}")


if __name__ == "__main__":
    main()
