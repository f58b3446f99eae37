"""Class progress as history grows, on PostgreSQL: the same class size, ten times a hundred
times the answers.

Two classrooms of 1,000 learners on one 100-question course; every learner holds 100 reviewed
cards. In the first class each learner has given 10 answers, in the second 1,000 (a million in
all), spread over the last year in each learner's own time zone. The answers are written
straight to the log, then `rollups_rebuild` sums them (its time is printed too). Prints the
median of `GET /api/v1/classrooms/{id}/progress/` for each class through Django's full request
path in-process, and the ratio. Targets: the ratio at most 1.5, and under 300 ms at 1,000
learners.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.progress_scaling [--learners 1000] [--requests 15]

The database named in DATABASE_URL is dropped and created afresh.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402
from bench.classroom_progress import course_built, timings_ms  # noqa: E402

QUESTIONS, LESSONS = 100, 5
SMALL, LARGE = 10, 1_000
RATIO_TARGET, MS_TARGET = 1.5, 300.0
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Asia/Kolkata"]


def build(learners: int) -> tuple[Any, Any, Any]:
    """The course, both classes and their history; returns (small class, large class,
    teacher)."""
    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from classrooms.models import Classroom, Membership

    now = timezone.now()
    course, _, questions = course_built(questions=QUESTIONS, lessons=LESSONS)
    # Made in one statement, the questions' ids run on from the first.
    first_question = min(question.pk for question in questions)
    teacher = User.objects.create_user("bench-teacher", password="bench-password-123")
    classes = []
    for size, answers in (("small", SMALL), ("large", LARGE)):
        members = User.objects.bulk_create(
            User(username=f"bench-{size}-{i}", password="!", timezone=ZONES[i % len(ZONES)],
                 day_starts_at_hour=i % 5, date_joined=now)
            for i in range(learners)
        )  # fmt: skip
        room = Classroom.objects.create(name=f"{size} class", course=course, teacher=teacher)
        Membership.objects.bulk_create(Membership(classroom=room, user=u) for u in members)
        ids = [u.pk for u in members]
        with connection.cursor() as cursor:
            # Every learner's 100 cards, reviewed, due over the next month and the last ten days.
            cursor.execute(
                """
                INSERT INTO reviews_card (user_id, question_id, lesson_id, state, stability,
                    difficulty,
                    due, last_review, reps, lapses, suspended, leech, seed, lesson_number,
                    position, created_at)
                SELECT u, q.id, q.lesson_id, 'review', 1 + (u * 7 + q.id) %% 40, 5.0,
                    %s + ((u + q.id) %% 40 - 10) * interval '1 day',
                    %s - ((u * 3 + q.id) %% 30) * interval '1 day', 2, 0, false, false,
                    u * 1000 + q.id, 1, q.position, %s
                FROM unnest(%s::bigint[]) AS u, quizzes_question q
                """,
                [now, now, now, ids],
            )
            # Each learner's answers over the last year, about a fifth of them practice.
            cursor.execute(
                """
                INSERT INTO reviews_answer (user_id, question_id, question_version, mode,
                    variant_nonce, notice, response, value_read, choice_ids, status, score,
                    misconception, self_rating, duration_ms, rating, card_before, created_at,
                    received_at)
                SELECT u, %s + (u + k) %% %s, 1,
                    CASE WHEN k %% 5 = 0 THEN 'practice' ELSE 'review' END, '', '', '2', '2', '[]',
                    CASE WHEN (u + k) %% 4 = 0 THEN 'incorrect' ELSE 'correct' END,
                    CASE WHEN (u + k) %% 4 = 0 THEN 0 ELSE 1 END, '', '', 9000 + k %% 7000,
                    CASE WHEN (u + k) %% 4 = 0 THEN 1 ELSE 3 END,
                    '{"state": "review"}'::jsonb, t, t
                FROM unnest(%s::bigint[]) AS u, generate_series(1, %s) AS k,
                    LATERAL (SELECT %s - (k * 365.0 / %s) * interval '1 day'
                        - ((u * 37 + k * 11) %% 1440) * interval '1 minute' AS t) AS moment
                """,
                [first_question, QUESTIONS, ids, answers, now, answers],
            )
        classes.append(room)
    return classes[0], classes[1], teacher


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=15)
    options = parser.parse_args()
    django_on_fresh_database(load_content=False, SECURE_SSL_REDIRECT="0")
    from io import StringIO

    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from accounts.services import token_create
    from reviews.models import Answer, Card, StudyDay

    started = time.perf_counter()
    small, large, teacher = build(options.learners)
    built = time.perf_counter() - started
    started = time.perf_counter()
    call_command("rollups_rebuild", stdout=StringIO())
    rebuilt = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(
        f"built in {built:.1f}s: {options.learners:,} learners a class, {Card.objects.count():,} "
        f"cards, {Answer.objects.count():,} answers; rollups_rebuild {rebuilt:.1f}s "
        f"({StudyDay.objects.count():,} study days)"
    )

    _, key = token_create(user=teacher)
    client = Client(headers={"Authorization": f"Token {key}"})

    def progress(room: Any) -> Any:
        def call() -> None:
            response = client.get(f"/api/v1/classrooms/{room.pk}/progress/")
            assert response.status_code == 200, response.content[:500]
            assert len(response.json()["learners"]) == options.learners

        return call

    small_ms, small_best = timings_ms(progress(small), options.requests)
    large_ms, large_best = timings_ms(progress(large), options.requests)
    ratio = large_ms / small_ms
    for answers, median, best in ((SMALL, small_ms, small_best), (LARGE, large_ms, large_best)):
        print(
            f"progress, {answers:>5} answers a learner: median {median:7.1f} ms, best {best:.1f} ms"
        )
    verdict = "ok" if ratio <= RATIO_TARGET else "OVER"
    fast = "ok" if large_ms < MS_TARGET else "OVER"
    print(
        f"ratio {ratio:.2f} (target <= {RATIO_TARGET}: {verdict}); "
        f"{options.learners:,} learners under {MS_TARGET:.0f} ms: {fast}"
    )


if __name__ == "__main__":
    main()
