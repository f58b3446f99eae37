"""A learner's stats as their history grows, on PostgreSQL.

Builds the decks of `bench.queue_scaling` (a learner with 100,000 cards, one with 1,000, and
899 more with 1,000 each; four in five of each learner's cards reviewed), then gives each of
the two measured learners one review answer per reviewed card, spread over the past year.
Prints the median latency of `GET /api/v1/stats/` for the small and the large history, and
their ratio (target: large / small at most 1.5).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.stats_scaling [--requests 30]

The database named in DATABASE_URL is created if missing and its tables are replaced.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402
from bench.queue_scaling import BIG, SMALL, build  # noqa: E402

ANSWERS = """INSERT INTO reviews_answer (user_id, question_id, question_version, mode,
                 variant_nonce, notice, response, value_read, choice_ids, status, score,
                 misconception, self_rating, duration_ms, card_id, rating, card_before,
                 card_after, created_at, received_at)
             SELECT c.user_id, c.question_id, 1, 'review', '', '', '2', '2', '[]',
                 CASE WHEN c.id % 5 = 0 THEN 'incorrect' ELSE 'correct' END,
                 CASE WHEN c.id % 5 = 0 THEN 0 ELSE 1 END, '', '', 9000, c.id,
                 CASE WHEN c.id % 5 = 0 THEN 1 ELSE 3 END,
                 '{"state": "review"}', '{"state": "review"}', at, at
             FROM reviews_card c
             JOIN accounts_user u ON u.id = c.user_id
             CROSS JOIN LATERAL (SELECT now() - (c.id % 365) * interval '1 day' AS at) AS t
             WHERE u.username IN ('bench-1', 'bench-2') AND c.last_review IS NOT NULL"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30)
    options = parser.parse_args()
    django_on_fresh_database(SECURE_SSL_REDIRECT="0")
    from io import StringIO

    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from accounts.models import User
    from accounts.services import token_create

    started = time.perf_counter()
    build(connection)
    with connection.cursor() as cursor:
        cursor.execute(ANSWERS)
        cursor.execute("ANALYZE")
        cursor.execute(
            "SELECT u.username, count(*) FROM reviews_answer a JOIN accounts_user u"
            " ON u.id = a.user_id GROUP BY u.username ORDER BY u.username"
        )
        print("answers:", ", ".join(f"{name} {n:,}" for name, n in cursor.fetchall()))
    # The answers went straight to the log: their rollups are summed from it, as a restore would.
    measured = list(
        User.objects.filter(username__in=["bench-1", "bench-2"]).values_list("pk", flat=True)
    )
    call_command("rollups_rebuild", *(f"--user={pk}" for pk in measured), stdout=StringIO())
    print(f"built in {time.perf_counter() - started:.1f}s")

    clients = {}
    for name in ("bench-2", "bench-1"):
        _, key = token_create(user=User.objects.get(username=name))
        clients[name] = Client(headers={"Authorization": f"Token {key}"})
        assert clients[name].get("/api/v1/stats/").status_code == 200  # warm up
    times: dict[str, list[float]] = {name: [] for name in clients}
    for _ in range(options.requests):  # alternated, so neither meets a warmer machine
        for name, client in clients.items():
            began = time.perf_counter()
            response = client.get("/api/v1/stats/")
            times[name].append(time.perf_counter() - began)
            assert response.status_code == 200, response.content[:300]
    small, large = (statistics.median(times[name]) for name in ("bench-2", "bench-1"))
    print(f"stats, {SMALL:,} cards     median {small * 1000:7.2f} ms")
    print(f"stats, {BIG:,} cards   median {large * 1000:7.2f} ms")
    print(f"ratio large / small       {large / small:7.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
