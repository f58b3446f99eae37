"""The export of a long history, on PostgreSQL: first byte, whole time and memory.

Builds one learner with 100,000 answers (and their cards), then reads
`GET /api/v1/me/export/` through Django's full request path in-process, as a server would
send it: the time to the first piece, the time to the last, and how much the process's memory
grew meanwhile (its peak resident size, and the peak of Python's own allocations). Then the
same document gathered whole in memory and rendered at once, as the export used to be made, for
comparison. Targets: the first byte in under 1 s, memory growth under 50 MB.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.export_stream [--answers 100000]

The database named in DATABASE_URL is dropped and created afresh.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402

FIRST_BYTE_S, GROWTH_MB = 1.0, 50.0
_PIECE_KB = 64


def resident_mb() -> float:
    """The process's resident memory now."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100_000)
    options = parser.parse_args()
    django_on_fresh_database(SECURE_SSL_REDIRECT="0")
    from django.db import connection
    from django.test import Client
    from rest_framework.renderers import JSONRenderer

    from accounts.models import User
    from accounts.selectors import user_export
    from accounts.services import token_create

    user = User.objects.create_user("bench", password="bench-password-123")
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO reviews_answer (user_id, question_id, question_version, mode,
                variant_nonce, notice, response, value_read, choice_ids, status, score,
                misconception, self_rating, duration_ms, rating, card_before, card_after,
                created_at, received_at)
            SELECT %s, q.id, 1, 'review', '', '', '3.2e7', '32000000', '[]', 'correct', 1, '',
                '', 12000, 3,
                '{"state": "review", "stability": 4.5, "difficulty": 5.1, "reps": 3}'::jsonb,
                '{"state": "review", "stability": 9.8, "difficulty": 5.0, "reps": 4}'::jsonb,
                now() - k * interval '5 minutes', now() - k * interval '5 minutes'
            FROM generate_series(1, %s) AS k
            CROSS JOIN LATERAL (SELECT id FROM quizzes_question
                                ORDER BY id OFFSET k %% 50 LIMIT 1) AS q
            """,
            [user.pk, options.answers],
        )
        cursor.execute("ANALYZE")
    _, key = token_create(user=user)
    client = Client(headers={"Authorization": f"Token {key}"})
    client.get("/api/v1/me/")  # the middleware loaded, as in a running server

    before = highest = resident_mb()
    began = time.perf_counter()
    response = client.get("/api/v1/me/export/")
    pieces = iter(response.streaming_content)  # type: ignore[arg-type]
    size = len(next(pieces))
    first = time.perf_counter() - began
    size += len(next(pieces))
    rows = time.perf_counter() - began
    for n, piece in enumerate(pieces):
        size += len(piece)
        if n % 20 == 0:
            highest = max(highest, resident_mb())
    whole = time.perf_counter() - began
    growth = max(highest, resident_mb()) - before
    print(f"streamed: {options.answers:,} answers, {size / 1e6:.1f} MB of JSON")
    print(f"  first byte {first * 1000:7.1f} ms  (target < {FIRST_BYTE_S * 1000:.0f} ms: "
          f"{'ok' if first < FIRST_BYTE_S else 'OVER'})")  # fmt: skip
    print(f"  first rows {rows * 1000:7.1f} ms  (the first {_PIECE_KB} KB of answers)")
    print(f"  whole      {whole:7.2f} s")
    verdict = "ok" if growth < GROWTH_MB else "OVER"
    print(f"  resident memory growth, at its highest: {growth:.1f} MB "
          f"(target < {GROWTH_MB:.0f} MB: {verdict})")  # fmt: skip
    # Python's own allocations at their peak, in a second pass (tracing slows it down).
    tracemalloc.start()
    for _ in client.get("/api/v1/me/export/").streaming_content:  # type: ignore[attr-defined]
        pass
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  Python allocations at their peak: {python_peak / 2**20:.1f} MB")

    before = resident_mb()
    began = time.perf_counter()
    rendered = JSONRenderer().render(user_export(user=user))
    gathered = time.perf_counter() - began
    grown = resident_mb() - before
    print(f"gathered whole, for comparison: {len(rendered) / 1e6:.1f} MB in {gathered:.2f} s, "
          f"the first byte only then; resident memory +{grown:.1f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
