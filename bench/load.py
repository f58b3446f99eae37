"""The mixed workload under rising load, on gunicorn and PostgreSQL, with locust.

Learners read lessons, take their queue and answer from it, look at their stats and sync
offline reviews; a teacher polls the class's progress. The load rises in steps of users
(each pausing 1 to 3 s between actions); every step reports requests per second, the 50th,
95th and 99th percentile per endpoint and the errors, and the run ends with the user count at
which the 95th percentile passes 500 ms. The same steps against a constant Django view on the
same server (the full middleware, no database) give the ceiling: the service's rate is stated
as a share of it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.load [--steps 50,100,150,200,300] [--seconds 30] \\
        [--workers 2] [--worker-class sync] [--threads 1] [--keep-alive 2]

The database named in DATABASE_URL is dropped and created afresh. This file is also the
locustfile the runner hands to locust.
"""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
P95_LIMIT_MS = 500.0
CEILING_USERS = 20
LEARNERS = 400

if os.environ.get("RESIDUAL_LOAD_ACCOUNTS"):  # run by locust: the users it simulates
    from locust import FastHttpUser, between, constant, task

    ACCOUNTS = json.loads(Path(os.environ["RESIDUAL_LOAD_ACCOUNTS"]).read_text())

    class Learner(FastHttpUser):
        weight = 20
        wait_time = between(1, 3)

        def on_start(self) -> None:
            self.token = random.choice(ACCOUNTS["learners"])
            self.auth = {"Authorization": f"Token {self.token}"}

        @task(3)
        def read_a_lesson(self) -> None:
            lesson = random.choice(ACCOUNTS["lessons"])
            self.client.get(f"/api/v1/lessons/{lesson}/", headers=self.auth, name="lesson")

        @task(6)
        def review(self) -> None:
            queue = self.client.get(
                "/api/v1/reviews/queue/?limit=5", headers=self.auth, name="queue"
            )
            if queue.status_code != 200:
                return
            for item in queue.json()["cards"]:
                question = item["question"]
                body: dict[str, Any] = {"variant": question["variant"]["token"]}
                if question.get("choices"):
                    body["choice_ids"] = [question["choices"][0]["id"]]
                elif question["kind"] == "numeric":
                    body["response"] = "1"
                else:
                    continue  # free text asks for a reveal first
                self.client.post(
                    f"/api/v1/questions/{question['id']}/answers/",
                    json=body,
                    headers=self.auth,
                    name="answer",
                )
                return

        @task(1)
        def stats(self) -> None:
            self.client.get("/api/v1/stats/", headers=self.auth, name="stats")

        @task(1)
        def sync(self) -> None:
            now = datetime.now(UTC)
            reviews = [
                {
                    "client_id": str(uuid.uuid4()),
                    "question": random.choice(ACCOUNTS["numeric"]),
                    "reviewed_at": (now - timedelta(minutes=5 * i + 1)).isoformat(),
                    "response": "1",
                    "duration_ms": 12_000,
                }
                for i in range(5)
            ]
            self.client.post(
                "/api/v1/reviews/sync/", json={"reviews": reviews}, headers=self.auth, name="sync"
            )

    class Teacher(FastHttpUser):
        weight = 1
        wait_time = between(5, 10)

        @task
        def progress(self) -> None:
            self.client.get(
                f"/api/v1/classrooms/{ACCOUNTS['classroom']}/progress/",
                headers={"Authorization": f"Token {ACCOUNTS['teacher']}"},
                name="class progress",
            )

    class Constant(FastHttpUser):
        """The ceiling: a view that does nothing, asked as fast as answers come (each run
        names the classes it uses)."""

        wait_time = constant(0)

        @task
        def nothing(self) -> None:
            self.client.get("/bench/constant/", name="constant view")


def accounts_made(path: Path) -> None:
    """Learners with tokens, a class of them with its teacher; written to `path`."""
    from django.utils import timezone

    from accounts import entitlements
    from accounts.models import Grant, User
    from accounts.services import token_create
    from classrooms.models import Classroom, Membership
    from course.models import Course, Lesson
    from quizzes.models import Question
    from reviews.deck import deck_refresh

    course = Course.objects.order_by("pk").first()
    assert course is not None, "the course is loaded first"
    teacher = User.objects.create_user("load-teacher", password="load-password-123")
    room = Classroom.objects.create(name="Load class", course=course, teacher=teacher)
    learners = []
    now = timezone.now()
    for n in range(LEARNERS):
        user = User.objects.create_user(f"load-{n}", password="!")
        entitlements.grant_add(user_id=user.pk, source=Grant.Source.STAFF, reference="load")
        Membership.objects.create(classroom=room, user=user)
        deck_refresh(user=user, now=now)  # the deck made, as after a learner's first queue
        learners.append(token_create(user=user)[1])
    path.write_text(
        json.dumps(
            {
                "learners": learners,
                "teacher": token_create(user=teacher)[1],
                "classroom": room.pk,
                "lessons": list(
                    Lesson.objects.filter(archived_at__isnull=True).values_list("slug", flat=True)
                ),
                "numeric": list(
                    Question.objects.live().filter(kind="numeric").values_list("pk", flat=True)
                ),
            }
        )
    )


def step(port: int, users: int, seconds: int, user_class: str, env: dict[str, str]) -> list[dict]:
    """One step of `users` (started over a tenth of the step), measured for `seconds`."""
    with tempfile.TemporaryDirectory() as folder:
        prefix = Path(folder) / "step"
        subprocess.run(
            [
                *(sys.executable, "-m", "locust", "-f", __file__, "--headless"),
                *("--host", f"http://127.0.0.1:{port}", "--users", str(users)),
                *("--spawn-rate", str(max(users // 3, 1)), "--run-time", f"{seconds}s"),
                *("--csv", str(prefix), "--only-summary", "--loglevel", "ERROR"),
                *user_class.split(),
            ],
            cwd=ROOT,
            env=env,
            check=False,
            capture_output=True,
        )
        with open(f"{prefix}_stats.csv") as table:
            return list(csv.DictReader(table))


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="25,50,75,100,150,200")
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-class", default="sync")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--keep-alive", type=int, default=2)
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.answer_path import django_on_fresh_database, free_port

    django_on_fresh_database(SECURE_SSL_REDIRECT="0")
    accounts = Path(tempfile.mkdtemp()) / "accounts.json"
    accounts_made(accounts)
    env = {
        **os.environ,
        "RESIDUAL_LOAD_ACCOUNTS": str(accounts),
        "SECURE_SSL_REDIRECT": "0",
        "DEBUG": "0",
        "SECRET_KEY": "load-bench-only-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "THROTTLE_ANSWERS": "1000000/min",
        "LOG_LEVEL": "WARNING",
    }
    port = free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "gunicorn", "bench.constant_wsgi:application"),
            *("--bind", f"127.0.0.1:{port}", "--workers", str(options.workers)),
            *("--worker-class", options.worker_class, "--threads", str(options.threads)),
            *("--keep-alive", str(options.keep_alive), "--log-level", "warning"),
        ],
        cwd=ROOT,
        env=env,
    )
    print(
        f"gunicorn: {options.workers} {options.worker_class} workers, {options.threads} "
        f"thread(s), keep-alive {options.keep_alive} s; {options.seconds} s a step"
    )
    rates: list[tuple[int, float, float]] = []
    errors = 0
    try:
        import time

        time.sleep(3)
        print("\nservice:")
        for users in [int(n) for n in options.steps.split(",")]:
            rows = step(port, users, options.seconds, "Learner Teacher", env)
            total = next(r for r in rows if r["Name"] == "Aggregated")
            rates.append((users, float(total["Requests/s"]), float(total["95%"])))
            errors += int(total["Failure Count"])
            print(
                f"  {users:4} users: {float(total['Requests/s']):6.1f} req/s, "
                f"p50 {total['50%']:>5} p95 {total['95%']:>5} p99 {total['99%']:>5} ms, "
                f"errors {total['Failure Count']}"
            )
            for row in rows:
                if row["Name"] != "Aggregated":
                    print(
                        f"      {row['Name']:<15} {float(row['Requests/s']):6.1f}/s "
                        f"p50 {row['50%']:>5} p95 {row['95%']:>5} p99 {row['99%']:>5}"
                        f" ms, errors {row['Failure Count']}"
                    )
        rows = step(port, CEILING_USERS, options.seconds, "Constant", env)
        ceiling = float(next(r for r in rows if r["Name"] == "Aggregated")["Requests/s"])
    finally:
        server.terminate()
        server.wait(timeout=10)
    saturated = next((users for users, _, p95 in rates if p95 > P95_LIMIT_MS), None)
    best = max(rate for _, rate, _ in rates)
    print(f"\nconstant view, {CEILING_USERS} users without pauses: {ceiling:.1f} req/s")
    print(
        f"p95 passes {P95_LIMIT_MS:.0f} ms at: "
        f"{f'{saturated} users' if saturated else 'no step (it never did)'}; errors {errors}"
    )
    print(f"highest rate {best:.1f} req/s: {best / ceiling:.2f} of the constant view's")


if __name__ == "__main__":
    main()
