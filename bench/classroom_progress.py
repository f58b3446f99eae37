"""A teacher's classroom views at class size, on PostgreSQL.

Builds one classroom of 200 learners on a 500-question course: every learner holds 500 cards
(100,000 in all), has answered every question once or twice (about 150,000 answers) and has
completed some lessons; three assignments are set. Then prints the median latency of
`GET /api/v1/classrooms/{id}/progress/` (JSON and `?format=csv`) and of
`GET /api/v1/classrooms/{id}/items/`, each through Django's full request path in-process (the
test client: URL routing, token authentication, the view, rendering), plus the two selectors
on their own. Target: each endpoint under 300 ms. Then the teacher's progress page,
`/teach/{id}/progress/`, for the same class: its median against the JSON endpoint's as a ratio
(target: at most 1.5) and each one's query count.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.classroom_progress [--requests 20]

The database named in DATABASE_URL is dropped and created afresh.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402

LEARNERS, QUESTIONS, LESSONS = 200, 500, 10
TARGET_MS = 300.0
BATCH = 5_000


def course_built(*, questions: int, lessons: int) -> tuple[Any, list[Any], list[Any]]:
    """A course of `lessons` one-section lessons and `questions` numeric questions spread over
    them, made in a few statements; returns (course, lessons, questions)."""
    from course.models import Course, Lesson, Section
    from quizzes.models import Question

    course = Course.objects.create(slug="bench-course", title="Bench course", summary="Bench.")
    made = Lesson.objects.bulk_create(
        Lesson(course=course, slug=f"bench-{n}", number=n, title=f"Lesson {n}", summary=".",
               minutes=10)
        for n in range(1, lessons + 1)
    )  # fmt: skip
    sections = Section.objects.bulk_create(
        Section(lesson=lesson, slug="only", position=1, title="Only", body_markdown=".",
                body_html="<p>.</p>")
        for lesson in made
    )  # fmt: skip
    asked = Question.objects.bulk_create(
        Question(
            key=f"bench-q{n}", kind="numeric", topic="mlp", difficulty=2,
            lesson=made[n % lessons], section=sections[n % lessons], position=n,
            prompt_markdown="1 + 1?", prompt_html="<p>1 + 1?</p>", answer=2,
            tolerance={"kind": "exact", "amount": 0.0},
        )
        for n in range(questions)
    )  # fmt: skip
    return course, made, asked


def build() -> tuple[Any, Any]:
    """The course, the class and its history; returns (classroom, teacher)."""
    import numpy as np
    from django.utils import timezone

    from accounts.models import User
    from classrooms.models import Assignment, Classroom, Membership
    from course.models import LessonProgress
    from reviews.models import Answer, Card

    rng = np.random.default_rng(7)
    now = timezone.now()
    course, lessons, questions = course_built(questions=QUESTIONS, lessons=LESSONS)
    teacher = User.objects.create_user("bench-teacher", password="bench-password-123")
    zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Asia/Kolkata"]
    learners = User.objects.bulk_create(
        User(username=f"bench-learner-{i}", password="!", timezone=zones[i % len(zones)],
             day_starts_at_hour=int(i % 5))
        for i in range(LEARNERS)
    )  # fmt: skip
    classroom = Classroom.objects.create(name="Bench class", course=course, teacher=teacher)
    Membership.objects.bulk_create(Membership(classroom=classroom, user=u) for u in learners)

    def rows(make: Callable[[Any, Any, int], Any]) -> Any:
        for i, user in enumerate(learners):
            for j, question in enumerate(questions):
                yield make(user, question, i * QUESTIONS + j)

    n = LEARNERS * QUESTIONS
    stability = rng.gamma(2.0, 5.0, n) + 0.1
    reviewed_days_ago = rng.integers(0, 30, n)
    due_in_days = rng.integers(-10, 30, n)
    first_score = (rng.random(n) < 0.6 + 0.3 * rng.random(n)).astype(float)
    retried = rng.random(n) < 0.5
    mistakes = np.array(["", "one_matrix", "no_bias", "forgot_ratio"])[rng.integers(0, 4, n)]

    def card(user: Any, question: Any, k: int) -> Card:
        return Card(
            user=user, question=question, state="review", stability=float(stability[k]),
            difficulty=5.0, due=now + timedelta(days=int(due_in_days[k]), hours=k % 24),
            last_review=now - timedelta(days=int(reviewed_days_ago[k])), reps=2, seed=k,
        )  # fmt: skip

    def answers(user: Any, question: Any, k: int) -> list[Answer]:
        made = now - timedelta(days=int(reviewed_days_ago[k]) + 3, minutes=k % 600)
        score = float(first_score[k])
        first = Answer(
            user=user, question=question, question_version=1, status=
            "correct" if score else "incorrect", score=score, created_at=made,
            misconception="" if score else str(mistakes[k]),
        )  # fmt: skip
        if not retried[k]:
            return [first]
        again = Answer(
            user=user, question=question, question_version=1, status="correct", score=1.0,
            created_at=now - timedelta(days=int(reviewed_days_ago[k])),
        )  # fmt: skip
        return [first, again]

    Card.objects.bulk_create(rows(card), batch_size=BATCH)
    Answer.objects.bulk_create((a for group in rows(answers) for a in group), batch_size=BATCH)
    LessonProgress.objects.bulk_create(
        LessonProgress(user=u, lesson=lesson, completed_at=now - timedelta(days=k))
        for i, u in enumerate(learners)
        for k, lesson in enumerate(lessons[: i % LESSONS])
    )
    for k in range(3):
        Assignment.objects.create(
            classroom=classroom, title=f"Week {k}", lesson=lessons[k],
            question_ids=[q.pk for q in questions[k * 10 : k * 10 + 10]],
            due_at=now - timedelta(days=7 - 7 * k),
        )  # fmt: skip
    return classroom, teacher


def timings_ms(action: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """The median and the fastest of `repeats` runs, after one to warm up. On a shared machine
    the fastest shows what the code costs when nothing else competes for the CPU."""
    action()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000, min(times) * 1000


def alternated(
    first: Callable[[], Any], second: Callable[[], Any], repeats: int
) -> tuple[list[float], list[float]]:
    """Each action's times in ms over `repeats` rounds, the two run in turns (after one of
    each to warm up)."""
    first()
    second()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for action, kept in zip((first, second), times, strict=True):
            began = time.perf_counter()
            action()
            kept.append((time.perf_counter() - began) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    options = parser.parse_args()
    django_on_fresh_database(load_content=False, SECURE_SSL_REDIRECT="0")
    from io import StringIO

    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from accounts.services import token_create
    from classrooms.items import classroom_items
    from classrooms.progress import classroom_progress
    from reviews.models import Answer, Card

    started = time.perf_counter()
    classroom, teacher = build()
    # The answers went straight to the log: their rollups are summed from it, as after a restore.
    call_command("rollups_rebuild", stdout=StringIO())
    with connection.cursor() as cursor:
        # Vacuumed too, so autovacuum does not wake on the new rows in the middle of a timing.
        cursor.execute("VACUUM ANALYZE")
    print(f"built in {time.perf_counter() - started:.1f}s: {LEARNERS} learners, "
          f"{Card.objects.count():,} cards, {Answer.objects.count():,} answers")  # fmt: skip

    _, key = token_create(user=teacher)
    client = Client(headers={"Authorization": f"Token {key}"})
    base = f"/api/v1/classrooms/{classroom.pk}"

    def get(path: str) -> Callable[[], None]:
        def call() -> None:
            response = client.get(base + path)
            assert response.status_code == 200, response.content[:500]
            if response.streaming:
                b"".join(response.streaming_content)  # type: ignore[arg-type]

        return call

    results = [
        ("progress endpoint, JSON ", get("/progress/")),
        ("progress endpoint, CSV  ", get("/progress/?format=csv")),
        ("items endpoint          ", get("/items/?page_size=100")),
        (
            "selector classroom_progress",
            lambda: classroom_progress(classroom=classroom, now=timezone.now()),
        ),
        ("selector classroom_items    ", lambda: classroom_items(classroom=classroom)),
    ]
    medians = {}
    for label, action in results:
        median, best = timings_ms(action, options.requests)
        medians[label.strip()] = median
        verdict = "ok" if median < TARGET_MS else "OVER"
        print(
            f"{label}  median {median:7.1f} ms  best {best:7.1f} ms"
            f"  (target: median < {TARGET_MS:.0f} ms: {verdict})"
        )

    # The teacher's page for the same data, signed in as a browser is.
    from django.test.utils import CaptureQueriesContext

    browser = Client()
    browser.force_login(teacher)

    def page() -> None:
        response = browser.get(f"/teach/{classroom.pk}/progress/")
        assert response.status_code == 200, response.content[:500]

    # Timed in turns with the endpoint, so whatever else the machine does falls on both alike.
    api_times, page_times = alternated(get("/progress/"), page, options.requests)
    median, best = statistics.median(page_times), min(page_times)
    ratio = median / statistics.median(api_times)
    with CaptureQueriesContext(connection) as on_page:
        page()
    with CaptureQueriesContext(connection) as on_api:
        get("/progress/")()
    print(
        f"progress page            median {median:7.1f} ms  best {best:7.1f} ms"
        f"  ratio to the JSON endpoint (median {statistics.median(api_times):.1f} ms, timed in "
        f"turns with it) {ratio:.2f} (target <= 1.5: "
        f"{'ok' if ratio <= 1.5 else 'OVER'}); queries: page {len(on_page)}, API {len(on_api)}"
    )


if __name__ == "__main__":
    main()
