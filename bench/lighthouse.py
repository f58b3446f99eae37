"""Lighthouse scores of the web app's home, lesson and review pages.

Serves the app as production does (gunicorn, DEBUG off, static files collected and compressed,
whitenoise) on a scratch database with the course loaded and a learner with cards due, then
runs the pinned Lighthouse (bench/lighthouse/package.json) in Debian's Chromium against each
page and prints its four scores. Targets: performance at least 95, accessibility 100, best
practices 100.

    (cd bench/lighthouse && npm ci)      # once: Lighthouse 12.2.3 into bench/lighthouse/
    .venv/bin/python -m bench.lighthouse [--chromium /usr/bin/chromium] [--form-factor mobile]

DATABASE_URL may name a PostgreSQL database (it is replaced); by default a scratch SQLite file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.answer_path import ensure_database, gunicorn, manage

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "bench" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TARGETS = {"performance": 95, "accessibility": 100, "best-practices": 100}

SETUP = """
import json
from django.test import Client
from django.utils import timezone
from accounts.models import User
from course.models import Lesson
from reviews.deck import deck_refresh
user = User.objects.create_user("lighthouse", password="lighthouse-password-123")
deck_refresh(user=user, now=timezone.now())
client = Client()
client.force_login(user)
lesson = Lesson.objects.order_by("number").select_related("course").first()
print(json.dumps({
    "session": client.cookies["sessionid"].value,
    "lesson": f"/courses/{lesson.course.slug}/{lesson.slug}/",
}))
"""


def scores(url: str, *, chromium: str, cookie: str | None, form_factor: str) -> dict[str, int]:
    command = [
        str(LIGHTHOUSE),
        url,
        "--output=json",
        "--output-path=stdout",
        "--quiet",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage",
    ]
    if form_factor == "desktop":
        command.append("--preset=desktop")
    if cookie:
        command.append("--extra-headers=" + json.dumps({"Cookie": f"sessionid={cookie}"}))
    run = subprocess.run(
        command,
        env={**os.environ, "CHROME_PATH": chromium},
        check=False,
        capture_output=True,
        text=True,
    )
    if run.returncode:
        sys.exit(f"Lighthouse failed on {url}:\n{run.stderr[-2000:]}")
    categories = json.loads(run.stdout)["categories"]
    return {name: round(100 * (categories[name]["score"] or 0)) for name in CATEGORIES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--form-factor", choices=["mobile", "desktop"], default="mobile")
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    if not LIGHTHOUSE.exists():
        sys.exit("Install Lighthouse first: (cd bench/lighthouse && npm ci)")

    scratch = Path(tempfile.mkdtemp(prefix="residual-lighthouse-"))
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{scratch / 'db.sqlite3'}"
    if url.startswith("postgres"):
        ensure_database(url)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "0",
        "SECRET_KEY": "lighthouse-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "STATIC_ROOT": str(scratch / "static"),
        "LOG_LEVEL": "WARNING",
    }
    manage(env, "migrate", "--noinput")
    manage(env, "load_content")
    manage(env, "collectstatic", "--noinput")
    setup = json.loads(manage(env, "shell", "--no-imports", "-c", SETUP).splitlines()[-1])

    pages = [
        ("home (visitor)", "/", None),
        ("lesson", setup["lesson"], setup["session"]),
        ("review", "/review/", setup["session"]),
    ]
    failed = False
    try:
        with gunicorn(env, workers=options.workers) as port:
            print(f"Lighthouse ({options.form_factor}), scores out of 100:")
            print(f"{'page':<16}" + "".join(f"{name:>16}" for name in CATEGORIES))
            for name, path, cookie in pages:
                got = scores(
                    f"http://localhost:{port}{path}",
                    chromium=options.chromium,
                    cookie=cookie,
                    form_factor=options.form_factor,
                )
                print(f"{name:<16}" + "".join(f"{got[c]:>16}" for c in CATEGORIES))
                failed |= any(got[c] < target for c, target in TARGETS.items())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    targets = ", ".join(f"{c} >= {t}" for c, t in TARGETS.items())
    print(f"targets: {targets}: {'not all met' if failed else 'met'}")


if __name__ == "__main__":
    main()
