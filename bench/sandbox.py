"""The coding questions' sandbox, timed on the attention question (batched causal multi-head
attention, its model solution): on PostgreSQL and Redis, with one warm worker of the `code`
queue in a process of its own.

Prints:
- the sandbox's start-up cost: grading the solution in the sandbox against running the same
  cases and checks in this process, unsandboxed (medians; their ratio and difference);
- submissions graded per second by one worker (a burst sent at once, first sent to last done);
- the time from submit to result, one submission at a time (p50 and p95; target p95 < 2 s).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/7 \\
        .venv/bin/python -m bench.sandbox [--submissions 30] [--repeats 20]

The database named in DATABASE_URL is dropped and created afresh; the broker's code queue is
emptied first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answer_path import django_on_fresh_database  # noqa: E402

KEY = "attention-implement-causal-mha"
TARGET_P95 = 2.0


def unsandboxed(problem: Any, seed: int, source: str) -> None:
    """The same cases and checks in this process (trusted code only: the model solution)."""
    from engine.coding import as_outputs, check

    scope: dict[str, Any] = {}
    exec(compile(source, "solution.py", "exec"), scope)
    function = scope[problem.function]
    for case in problem.cases(seed):
        got = as_outputs(function(**case.arguments))
        verdict = check(got, problem.expected(case), rtol=problem.rtol, atol=problem.atol)
        assert verdict.passed, (case.name, verdict.message)


def median_seconds(action: Any, repeats: int) -> float:
    action()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=20)
    options = parser.parse_args()
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith("redis"):
        sys.exit("This benchmark needs a Redis broker: set CELERY_BROKER_URL=redis://...")
    django_on_fresh_database()

    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from config.celery import app
    from engine.coding import get_problem
    from quizzes.coding import grade_source, hidden_seed
    from quizzes.models import Question
    from reviews.code import code_submit
    from reviews.models import CodeSubmission

    question = Question.objects.select_related("entry").get(key=KEY)
    problem = get_problem(question.entry.code_problem)
    seed, source = hidden_seed(KEY), question.entry.code_solution

    inside = median_seconds(
        lambda: grade_source(problem=problem, seed=seed, source=source, examples_only=False),
        options.repeats,
    )
    outside = median_seconds(lambda: unsandboxed(problem, seed, source), options.repeats)
    cases = len(problem.cases(seed))
    print(
        f"{KEY}, {cases} cases: sandboxed {inside * 1000:.1f} ms, unsandboxed "
        f"{outside * 1000:.1f} ms; ratio {inside / outside:.1f}, start-up about "
        f"{(inside - outside) * 1000:.0f} ms a run"
    )

    learner = User.objects.create_user("bench-coder", password="bench-password-123")
    with app.connection_for_write() as conn:
        conn.default_channel.client.delete("code")
    env = {**os.environ, "LOG_LEVEL": "WARNING"}
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--queues", "code"]
    command += ["--pool", "solo", "--without-heartbeat", "--without-gossip", "--without-mingle"]
    worker = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )

    def submitted() -> int:
        with transaction.atomic():
            return code_submit(
                user=learner, question=question, source=source, run="submit", now=timezone.now()
            ).pk

    def done(ids: list[int]) -> bool:
        return CodeSubmission.objects.filter(pk__in=ids, status="done").count() == len(ids)

    def wait(ids: list[int], limit: float = 120) -> None:
        deadline = time.monotonic() + limit
        while not done(ids):
            if time.monotonic() > deadline:
                raise SystemExit(f"submissions {ids} not done in {limit:.0f} s")
            time.sleep(0.01)

    try:
        wait([submitted()])  # the worker is up and warm
        began = time.perf_counter()
        burst = [submitted() for _ in range(options.submissions)]
        wait(burst)
        elapsed = time.perf_counter() - began
        print(
            f"one worker: {options.submissions} submissions in {elapsed:.2f} s = "
            f"{options.submissions / elapsed:.1f} graded per second"
        )
        latencies = []
        for _ in range(options.submissions):
            began = time.perf_counter()
            wait([submitted()])
            latencies.append(time.perf_counter() - began)
        latencies.sort()
        p50 = statistics.median(latencies)
        p95 = latencies[max(0, round(0.95 * len(latencies)) - 1)]
        verdict = "ok" if p95 < TARGET_P95 else "OVER"
        print(
            f"submit to result, one at a time ({len(latencies)}): p50 {p50 * 1000:.0f} ms, "
            f"p95 {p95 * 1000:.0f} ms (target p95 < {TARGET_P95:.0f} s: {verdict})"
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)


if __name__ == "__main__":
    main()
