"""The card list's first and last page at 100,000 cards, on PostgreSQL.

Builds the decks of `bench.queue_scaling` (a learner with 100,000 cards, 80,000 of them seen,
and 900 more learners), then times `GET /api/v1/cards/` for the first page, the last page by
page number, and the last page read on from a cursor (the `next_cursor` of the page before it),
alternating the three. Prints each median and the ratio of each last page to the first
(target for the cursor: at most 1.5).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.cards_list [--requests 30]

The database named in DATABASE_URL is created if missing and its tables are replaced.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402
from bench.queue_scaling import build  # noqa: E402

PAGE = 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30)
    options = parser.parse_args()
    django_on_fresh_database(SECURE_SSL_REDIRECT="0")
    from django.db import connection
    from django.test import Client

    from accounts.models import User
    from accounts.services import token_create
    from config.pagination import KeysetPagination
    from reviews.selectors import cards_of

    build(connection)
    learner = User.objects.get(username="bench-1")
    seen = cards_of(user=learner).count()
    last_page = math.ceil(seen / PAGE)
    # The cursor a client holds after reading every page but the last.
    before_last = cards_of(user=learner)[(last_page - 1) * PAGE - 1]
    cursor = KeysetPagination()._encode(before_last)
    _, key = token_create(user=learner)
    client = Client(headers={"Authorization": f"Token {key}"})
    requests = {
        "first page": {"page": 1},
        f"last page, ?page={last_page}": {"page": last_page},
        "last page, ?cursor=": {"cursor": cursor},
    }
    times: dict[str, list[float]] = {name: [] for name in requests}
    for params in requests.values():  # warm up, and the same cards either way
        assert client.get("/api/v1/cards/", params).status_code == 200
    by_page = client.get("/api/v1/cards/", {"page": last_page}).json()["results"]
    by_cursor = client.get("/api/v1/cards/", {"cursor": cursor}).json()
    assert [c["id"] for c in by_page] == [c["id"] for c in by_cursor["results"]]
    assert by_cursor["next_cursor"] is None
    for _ in range(options.requests):
        for name, params in requests.items():
            began = time.perf_counter()
            response = client.get("/api/v1/cards/", params)
            times[name].append(time.perf_counter() - began)
            assert response.status_code == 200, response.content[:300]
    first = statistics.median(times["first page"])
    print(f"{seen:,} cards listed, {PAGE} a page")
    for name, measured in times.items():
        median = statistics.median(measured)
        print(f"{name:<28} median {median * 1000:7.2f} ms   {median / first:5.2f} x the first")
    print("target: the last page by cursor within 1.5 x the first")


if __name__ == "__main__":
    main()
