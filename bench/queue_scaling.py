"""The review queue as decks grow, and offline sync throughput, on PostgreSQL.

Builds 1,000,000 cards: one learner with 100,000, one with 1,000, and 899 more with 1,000 each.
Prints the median latency of `GET /api/v1/reviews/queue/` for the small and the large deck
(target: large / small at most 1.5), then how many reviews per second one 1,000-review
`POST /api/v1/reviews/sync/` applies (target: at least 500).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.queue_scaling [--requests 50]

The database named in DATABASE_URL is created if missing and its tables are replaced.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import DEFAULT_URL, ensure_database  # noqa: E402

BIG, SMALL, FILLERS, FILLER_CARDS = 100_000, 1_000, 899, 1_000


def build(connection: object) -> None:
    sql = [
        # 100,000 numeric questions in one lesson of the loaded course.
        """INSERT INTO quizzes_question (key, kind, topic, difficulty, lesson_id, position,
               interview, prompt_markdown, prompt_html, explanation_markdown, explanation_html,
               model_answer_markdown, model_answer_html, generator, answer, tolerance, mistakes,
               solution_steps, version, answer_fingerprint, created_at, updated_at)
           SELECT 'bench-' || n, 'numeric', 'mlp', 2, (SELECT min(id) FROM course_lesson), 1,
               false, '1 + 1?', '<p>1 + 1?</p>', '', '', '', '', '', '2',
               '{"kind": "exact", "amount": 0.0}', '[]', '[]', 1, '', now(), now()
           FROM generate_series(1, %(big)s) AS n""",
        """INSERT INTO accounts_user (password, is_superuser, username, first_name, last_name,
               email, is_staff, is_active, date_joined, plan, timezone, desired_retention,
               new_cards_per_day, reviews_per_day, day_starts_at_hour, reminder_hour,
               email_reminders)
           SELECT '!', false, 'bench-' || n, '', '', '', false, true, now(), 'free', 'UTC', 0.9,
               20, 200, 4, 18, false
           FROM generate_series(1, %(users)s) AS n""",
    ]
    cards = """INSERT INTO quizzes_card (user_id, question_id, state, step, stability, difficulty,
                   due, last_review, reps, lapses, suspended, leech, seed, created_at)
               SELECT u.id, q.id, 'review', NULL, 1 + (q.id %% 50), 5.0,
                   now() + ((q.id %% 60) - 30) * interval '1 day',
                   now() - interval '10 days', 3, 0, false, false, q.id, now()
               FROM accounts_user u
               JOIN quizzes_question q ON q.key LIKE 'bench-%%'
                   AND CAST(substring(q.key from 7) AS integer) <= %(size)s
               WHERE u.username = %(name)s"""
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        for statement in sql:
            cursor.execute(statement, {"big": BIG, "users": FILLERS + 2})
        cursor.execute(cards, {"size": BIG, "name": "bench-1"})
        cursor.execute(cards, {"size": SMALL, "name": "bench-2"})
        cursor.execute(
            """INSERT INTO quizzes_card (user_id, question_id, state, step, stability,
                   difficulty, due, last_review, reps, lapses, suspended, leech, seed, created_at)
               SELECT u.id, q.id, 'review', NULL, 5.0, 5.0, now() + interval '3 days',
                   now() - interval '4 days', 2, 0, false, false, 1, now()
               FROM accounts_user u
               JOIN quizzes_question q ON q.key LIKE 'bench-%%'
                   AND CAST(substring(q.key from 7) AS integer) <= %(cards)s
               WHERE u.username LIKE 'bench-%%' AND u.username NOT IN ('bench-1', 'bench-2')""",
            {"cards": FILLER_CARDS},
        )
        cursor.execute("ANALYZE")
        cursor.execute("SELECT count(*) FROM quizzes_card")
        print(f"cards in the table: {cursor.fetchone()[0]:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    options = parser.parse_args()
    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not url.startswith("postgres"):
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL=postgres://...")
    ensure_database(url)
    os.environ.update(
        DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings", SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="WARNING", THROTTLE_ANSWERS="1000000/min",
    )  # fmt: skip
    import django

    django.setup()
    from io import StringIO

    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from accounts.models import User
    from accounts.services import token_create
    from quizzes.models import Card

    call_command("migrate", verbosity=0)
    call_command("load_content", stdout=StringIO())
    started = time.perf_counter()
    build(connection)
    print(f"built in {time.perf_counter() - started:.1f}s")

    def median_latency(username: str) -> float:
        user = User.objects.get(username=username)
        _, key = token_create(user=user)
        client = Client(headers={"Authorization": f"Token {key}"})
        client.get("/api/v1/reviews/queue/")  # warm up
        times = []
        for _ in range(options.requests):
            began = time.perf_counter()
            response = client.get("/api/v1/reviews/queue/?limit=20")
            times.append(time.perf_counter() - began)
            assert response.status_code == 200, response.content
        return statistics.median(times)

    small = median_latency("bench-2")
    large = median_latency("bench-1")
    print(f"queue, {SMALL:,} cards     median {small * 1000:7.2f} ms")
    print(f"queue, {BIG:,} cards   median {large * 1000:7.2f} ms")
    print(f"ratio large / small       {large / small:7.2f}  (target <= 1.5)")

    learner = User.objects.get(username="bench-3")
    _, key = token_create(user=learner)
    now = timezone.now()
    question_ids = list(
        Card.objects.filter(user=learner).order_by("pk").values_list("question_id", flat=True)
    )
    reviews = [
        {
            "client_id": str(uuid.uuid4()),
            "question": question_ids[i % len(question_ids)],
            "reviewed_at": (now - timedelta(minutes=1000 - i)).isoformat(),
            "response": "2",
            "duration_ms": 9000,
        }
        for i in range(1000)
    ]
    client = Client(headers={"Authorization": f"Token {key}"})
    began = time.perf_counter()
    response = client.post(
        "/api/v1/reviews/sync/", {"reviews": reviews}, content_type="application/json"
    )
    elapsed = time.perf_counter() - began
    applied = sum(r["status"] == "applied" for r in response.json()["results"])
    rate = applied / elapsed
    print(f"sync: {applied:,} reviews in {elapsed:.2f}s = {rate:,.0f} reviews/s  (target >= 500)")


if __name__ == "__main__":
    main()
