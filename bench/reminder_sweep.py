"""The due-review reminder sweep at scale, on PostgreSQL.

Builds 100,000 learners in eight time zones with reminder hours spread over the day, and
5,000,000 cards (50 each; four learners in five have cards due). Then runs the sweep as beat
does, at the moment the bench runs, and prints its wall time and query count (target: under
10 seconds, and queries that grow with batches, not learners), then a second sweep right after
(everyone due has been reminded: it finds nobody).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.reminder_sweep [--learners 100000] [--cards-each 50]

The database named in DATABASE_URL is created if missing and its tables are replaced.
E-mails are not sent here: the sweep hands them to another task, which this bench counts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402

ZONES = [
    "UTC", "Europe/London", "Europe/Berlin", "Asia/Kolkata", "Asia/Tokyo",
    "Australia/Sydney", "America/New_York", "America/Los_Angeles",
]  # fmt: skip


def build(connection: object, *, learners: int, cards_each: int) -> None:
    zones = "ARRAY[" + ", ".join(f"'{zone}'" for zone in ZONES) + "]"
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute(
            f"""INSERT INTO accounts_user (password, is_superuser, username, first_name,
                   last_name, email, is_staff, is_active, date_joined, timezone,
                   desired_retention, new_cards_per_day, reviews_per_day, day_starts_at_hour,
                   reminder_hour, email_reminders)
               SELECT '!', false, 'bench-' || n, '', '', 'bench-' || n || '@example.com',
                   false, true, now(), ({zones})[1 + n %% 8], 0.9, 20, 200, 4,
                   (n * 7) %% 24, n %% 2 = 0
               FROM generate_series(1, %(learners)s) AS n""",
            {"learners": learners},
        )
        # Card k of learner n: k <= 10 due a day ago for four learners in five, the rest due
        # in 1 to 40 days.
        cursor.execute(
            """INSERT INTO reviews_card (user_id, question_id, lesson_id, state, step, stability,
                   difficulty, due, last_review, reps, lapses, suspended, leech, seed,
                   lesson_number, position, reset_at, created_at)
               SELECT u.id, q.id, q.lesson_id, 'review', NULL, 10.0, 5.0,
                   CASE WHEN q.k <= 10 AND u.id %% 5 <> 0 THEN now() - interval '1 day'
                        ELSE now() + (1 + (u.id + q.k) %% 40) * interval '1 day' END,
                   now() - interval '10 days', 3, 0, false, false, u.id * 100 + q.k,
                   l.number, q.position, NULL, now()
               FROM accounts_user u
               CROSS JOIN (
                   SELECT id, lesson_id, position, row_number() OVER (ORDER BY id) AS k
                   FROM quizzes_question ORDER BY id LIMIT %(cards)s
               ) AS q
               JOIN course_lesson l ON l.id = q.lesson_id
               WHERE u.username LIKE 'bench-%%'""",
            {"cards": cards_each},
        )
        cursor.execute("ANALYZE")
        cursor.execute("SELECT count(*) FROM accounts_user")
        users = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM reviews_card")
        print(f"learners: {users:,}  cards: {cursor.fetchone()[0]:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=100_000)
    parser.add_argument("--cards-each", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=1_000)
    options = parser.parse_args()
    django_on_fresh_database()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.models import Notification
    from reviews.notices import reminders_sweep

    started = time.perf_counter()
    build(connection, learners=options.learners, cards_each=options.cards_each)
    print(f"built in {time.perf_counter() - started:.1f}s")

    for label in ("first sweep", "second sweep"):
        owed: list[int] = []
        now = timezone.now()
        with CaptureQueriesContext(connection) as captured:
            began = time.perf_counter()
            outcome = reminders_sweep(
                now=now, emails_owed=owed.extend, batch_size=options.batch_size
            )
            elapsed = time.perf_counter() - began
        queries = [q for q in captured.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")]
        print(
            f"{label}: {elapsed:6.2f}s (target < 10)  reminded {outcome.reminded:,} learners "
            f"in {outcome.batches} batches of up to {options.batch_size:,}; "
            f"{len(queries)} queries (2 to start, then 3 per batch, each batch one transaction); "
            f"e-mails handed on: {len(owed) - outcome.resumed:,} new, "
            f"{outcome.resumed:,} still unsent from before"
        )
    print(f"notifications written: {Notification.objects.count():,}")


if __name__ == "__main__":
    main()
