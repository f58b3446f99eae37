"""The answer path under load, against a trivial authenticated endpoint on the same server.

Serves the app with gunicorn on PostgreSQL and drives it from a second process: requests per
second for `GET /api/v1/me/` (authentication and one small JSON body), then answers per second
for a generated question (`POST .../answers/` with a signed variant), and their ratio.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.answer_path [--seconds 10] [--clients 8] [--workers 3]

The database named in DATABASE_URL is created if missing and its tables are replaced.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/residual_bench"

DRIVER = r"""
import json, sys, threading, time
import requests

base, seconds, clients, kind, learners = sys.argv[1:6]
seconds, clients = float(seconds), int(clients)
learners = json.loads(open(learners).read())
done, errors, lock = [0], [0], threading.Lock()
stop = time.perf_counter() + seconds

def work(n):
    # Each client is a learner of its own, answering one question after another.
    learner = learners[n % len(learners)]
    payloads = learner["answers"]
    session = requests.Session()
    session.headers["Authorization"] = "Token " + learner["token"]
    i = n // len(learners)
    while time.perf_counter() < stop:
        if kind == "trivial":
            r = session.get(base + "/api/v1/me/")
            ok = r.status_code == 200
        else:
            url, body = payloads[i % len(payloads)]
            r = session.post(base + url, json=body)
            ok = r.status_code == 201
        i += 1 + (clients - 1) // len(learners)
        with lock:
            done[0] += ok
            errors[0] += not ok

threads = [threading.Thread(target=work, args=(n,)) for n in range(clients)]
began = time.perf_counter()
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"ok": done[0], "errors": errors[0], "seconds": time.perf_counter() - began}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def gunicorn(env: dict[str, str], *, workers: int, production: bool = False) -> Iterator[int]:
    """The app served by gunicorn with `env` on a free local port, open once it listens;
    yields the port and stops the server at the end. `production` serves it with the
    production settings (`config/gunicorn.py`, access log included), `workers` of them;
    otherwise with gunicorn's defaults (sync workers, no keep-alive)."""
    port = free_port()
    settings = ("-c", "config/gunicorn.py") if production else ("--log-level", "warning")
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "gunicorn", "config.wsgi:application", *settings),
            *("--bind", f"127.0.0.1:{port}", "--workers", str(workers)),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=10)


def ensure_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def django_on_fresh_database(*, load_content: bool = True, **env: str) -> None:
    """For a bench run in this process: replaces the PostgreSQL database in DATABASE_URL,
    sets Django up on it with `env` added to the environment, migrates, and loads the course
    unless told not to."""
    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not url.startswith("postgres"):
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL=postgres://...")
    ensure_database(url)
    os.environ.update(
        DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings", LOG_LEVEL="WARNING", **env
    )
    import django

    django.setup()
    from io import StringIO

    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if load_content:
        call_command("load_content", stdout=StringIO())


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


SETUP = """
import json
from accounts.models import User
from accounts.services import token_create
from quizzes.models import Question
from quizzes.variants import variant_token
question = Question.objects.filter(generator="relu_neuron").first()
learners = []
for n in range(LEARNERS):
    user = User.objects.create_user(f"bench-{n}", password="bench-password-123")
    _, key = token_create(user=user)
    answers = []
    # Each answer to a variant the server chose, once: review mode counts nothing else.
    for seed in range(5000):
        token = variant_token(
            user_id=user.pk, question_id=question.pk, seed=seed, server_chosen=True
        )
        answers.append([f"/api/v1/questions/{question.pk}/answers/",
                        {"response": "0.5", "variant": token, "duration_ms": 4000}])
    learners.append({"token": key, "answers": answers})
print(json.dumps(learners))
"""


def drive(base: str, seconds: float, clients: int, kind: str, payloads: Path) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            DRIVER,
            base,
            str(seconds),
            str(clients),
            kind,
            str(payloads),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--production",
        action="store_true",
        help="serve with config/gunicorn.py (threaded workers, keep-alive) instead of sync ones",
    )
    options = parser.parse_args()

    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not url.startswith("postgres"):
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL=postgres://...")
    ensure_database(url)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "0",
        "SECRET_KEY": "bench-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "THROTTLE_ANSWERS": "1000000/min",
        "LOG_LEVEL": "WARNING",
    }
    manage(env, "migrate", "--noinput")
    manage(env, "load_content")
    # A learner per client, so no two clients wait on one card's lock.
    setup = SETUP.replace("LEARNERS", str(options.clients))
    learners = manage(env, "shell", "--no-imports", "-c", setup).splitlines()[-1]
    payloads = ROOT / "bench" / ".answer_payloads.json"
    payloads.write_text(learners)

    try:
        with gunicorn(env, workers=options.workers, production=options.production) as port:
            base = f"http://127.0.0.1:{port}"
            drive(base, 2, options.clients, "trivial", payloads)  # warm up
            # Alternate the two loads, so a passing spike of other work falls on both.
            rounds = [
                {
                    kind: drive(base, options.seconds, options.clients, kind, payloads)
                    for kind in ("trivial", "answer")
                }
                for _ in range(options.rounds)
            ]
    finally:
        payloads.unlink(missing_ok=True)

    def rate(run: dict[str, float]) -> float:
        return run["ok"] / run["seconds"]

    workers, clients = options.workers, options.clients
    kind = "threaded (config/gunicorn.py)" if options.production else "sync"
    print(
        f"gunicorn {workers} {kind} workers, {clients} clients, "
        f"{options.seconds:g}s per load and round"
    )
    for number, both in enumerate(rounds, start=1):
        trivial, answers = rate(both["trivial"]), rate(both["answer"])
        errors = both["trivial"]["errors"] + both["answer"]["errors"]
        print(
            f"round {number}: trivial GET /api/v1/me/ {trivial:7.1f} req/s, "
            f"answers {answers:7.1f} req/s, ratio {answers / trivial:.2f} ({errors} errors)"
        )
    trivial_rate = statistics.median(rate(both["trivial"]) for both in rounds)
    answer_rate = statistics.median(rate(both["answer"]) for both in rounds)
    print(f"median ratio answers / trivial   {answer_rate / trivial_rate:.2f}  (target >= 0.55)")


if __name__ == "__main__":
    main()
