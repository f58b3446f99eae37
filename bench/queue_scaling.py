"""The review queue as decks grow, and offline sync throughput, on PostgreSQL.

Builds 1,000,000 cards: one learner with 100,000, one with 1,000, and 899 more with 1,000 each;
a fifth of each learner's cards are new (made ahead for questions not yet reviewed), the rest
reviewed, and every learner's deck is up to date, as after their first queue.
Prints the median latency of `GET /api/v1/reviews/queue/` for the small and the large deck
(target: large / small at most 1.5), then how many reviews per second one 1,000-review
`POST /api/v1/reviews/sync/` applies (target: at least 500).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.queue_scaling [--requests 50] [--only queue|sync]

The database named in DATABASE_URL is created if missing and its tables are replaced.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402

BIG, SMALL, FILLERS, FILLER_CARDS = 100_000, 1_000, 899, 1_000
NEW_PERCENT = 20  # of each learner's cards: made ahead for questions not reviewed yet


def build(connection: object) -> None:
    sql = [
        # 100,000 numeric questions after the first section of one lesson of the loaded
        # course (a free one: the learners are on the free plan, as most are).
        """INSERT INTO quizzes_question (key, kind, topic, difficulty, lesson_id, section_id,
               position, interview, prompt_markdown, prompt_html, explanation_markdown,
               explanation_html, model_answer_markdown, model_answer_html, generator, answer,
               tolerance, unit, mistakes, solution_steps, version, answer_fingerprint,
               level, created_at, updated_at)
           SELECT 'bench-' || n, 'numeric', 'mlp', 2, s.lesson_id, s.id, 1,
               false, '1 + 1?', '<p>1 + 1?</p>', '', '', '', '', '', '2',
               '{"kind": "exact", "amount": 0.0}', '', '[]', '[]', 1, '', '', now(), now()
           FROM generate_series(1, %(big)s) AS n
           CROSS JOIN (SELECT id, lesson_id FROM course_section
                       WHERE lesson_id = (SELECT min(id) FROM course_lesson)
                       ORDER BY position LIMIT 1) AS s""",
        """INSERT INTO accounts_user (password, is_superuser, username, first_name, last_name,
               email, is_staff, is_active, date_joined, timezone, desired_retention,
               new_cards_per_day, reviews_per_day, day_starts_at_hour, reminder_hour,
               email_reminders)
           SELECT '!', false, 'bench-' || n, '', '', '', false, true, now() - interval '90 days',
               'UTC', 0.9,
               20, 200, 4, 18, false
           FROM generate_series(1, %(users)s) AS n""",
    ]
    # Bench question n is `bench-<n>`; a learner's cards are bench questions 1..size, the
    # first `reviewed` of them reviewed before, the rest made ahead as new (see reviews.deck).
    # Seeds are a hash of the learner and the question, as the app's are.
    cards = """INSERT INTO reviews_card (user_id, question_id, lesson_id, state, step, stability,
                   difficulty, due, last_review, reps, lapses, suspended, leech, seed,
                   lesson_number, position, reset_at, created_at)
               SELECT u.id, q.id, q.lesson_id,
                   CASE WHEN n <= %(reviewed)s THEN 'review' ELSE 'new' END, NULL,
                   CASE WHEN n <= %(reviewed)s THEN {stability} END,
                   CASE WHEN n <= %(reviewed)s THEN 5.0 END,
                   CASE WHEN n <= %(reviewed)s THEN {due} ELSE now() END,
                   CASE WHEN n <= %(reviewed)s THEN {last_review} END,
                   CASE WHEN n <= %(reviewed)s THEN 3 ELSE 0 END, 0, false, false,
                   ('x' || substr(md5('card:' || u.id || ':' || q.id), 1, 15))::bit(60)::bigint,
                   l.number, q.position, NULL, now()
               FROM accounts_user u
               JOIN quizzes_question q ON q.key LIKE 'bench-%%'
               JOIN course_lesson l ON l.id = q.lesson_id
               CROSS JOIN LATERAL (SELECT CAST(substring(q.key from 7) AS integer) AS n) AS k
               WHERE {learners} AND n <= %(size)s"""
    # The two measured decks vary: overdue by up to 30 days or due within 30, stability 1 to
    # 50 days. The other learners' review cards are all due in three days.
    varied = cards.format(
        learners="u.username = %(name)s",
        stability="1 + (q.id %% 50)",
        due="now() + ((q.id %% 60) - 30) * interval '1 day'",
        last_review="now() - interval '10 days'",
    )
    steady = cards.format(
        learners="u.username LIKE 'bench-%%' AND u.username NOT IN ('bench-1', 'bench-2')",
        stability="5.0",
        due="now() + interval '3 days'",
        last_review="now() - interval '4 days'",
    )
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        for statement in sql:
            cursor.execute(statement, {"big": BIG, "users": FILLERS + 2})
        for statement, name, size in (
            (varied, "bench-1", BIG),
            (varied, "bench-2", SMALL),
            (steady, "", FILLER_CARDS),
        ):
            reviewed = size * (100 - NEW_PERCENT) // 100
            cursor.execute(statement, {"reviewed": reviewed, "name": name, "size": size})
        # Every learner's deck is up to date, as after their first queue.
        cursor.execute(
            """INSERT INTO reviews_deck (user_id, revision, questions_through, built_at)
               SELECT u.id, COALESCE((SELECT number FROM quizzes_bankrevision WHERE id = 1), 0),
                   (SELECT max(id) FROM quizzes_question), now()
               FROM accounts_user u WHERE u.username LIKE 'bench-%%'"""
        )
        cursor.execute("ANALYZE")
        cursor.execute("SELECT count(*) FROM reviews_card")
        print(f"cards in the table: {cursor.fetchone()[0]:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument(
        "--only", choices=["queue", "sync"], help="measure only the queue or only the sync"
    )
    options = parser.parse_args()
    django_on_fresh_database(SECURE_SSL_REDIRECT="0", THROTTLE_ANSWERS="1000000/min")
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from accounts.models import User
    from accounts.services import token_create
    from reviews.models import Answer, Card

    now = timezone.now()
    started = time.perf_counter()
    build(connection)
    print(f"built in {time.perf_counter() - started:.1f}s")

    served: list[int] = []

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
        served.append(len(response.json()["cards"]))
        return statistics.median(times)

    if options.only != "sync":
        small = median_latency("bench-2")
        large = median_latency("bench-1")
        print(f"queue, {SMALL:,} cards     median {small * 1000:7.2f} ms")
        print(f"queue, {BIG:,} cards   median {large * 1000:7.2f} ms")
        print(f"ratio large / small       {large / small:7.2f}  (target <= 1.5)")
        # A review today of one of its questions: the whole lesson's other cards wait until
        # tomorrow, and the large deck is all one lesson.
        big = User.objects.get(username="bench-1")
        card = Card.objects.filter(user=big).exclude(state="new").order_by("pk").first()
        assert card is not None
        Answer.objects.create(
            user=big, question_id=card.question_id, question_version=1, status="correct",
            score=1.0, card=card, rating=3, card_before={"state": "review"}, created_at=now,
        )  # fmt: skip
        buried = median_latency("bench-1")
        print(f"queue, {BIG:,} cards, its lesson waiting  median {buried * 1000:7.2f} ms")
        print(f"ratio waiting / large     {buried / large:7.2f}  (target <= 1.5)")
    if options.only == "queue":
        return

    learner = User.objects.get(username="bench-3")
    _, key = token_create(user=learner)
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
