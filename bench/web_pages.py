"""The web app's pages against the API calls they are built on, measured side by side.

Server time (Django's whole stack in this process, no network, its middleware loaded once
as a server process loads it) of each page and of its API twin, alternated call by call over
fresh learners, and the ratio of their medians (target: at most 1.5):

- the lesson page `/courses/<course>/<lesson>/` vs `GET /api/v1/lessons/<lesson>/`;
- the review step, a card shown then answered (`GET /review/`, `POST /review/answer/<id>/`) vs
  `GET /api/v1/reviews/queue/?limit=1` then `POST /api/v1/questions/<id>/answers/`;
- the stats page `/stats/` vs `GET /api/v1/stats/`.

Then answers per second through each review step, one learner after another.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/residual_bench \\
        .venv/bin/python -m bench.web_pages [--learners 150]

The database named in DATABASE_URL is created if missing and its tables are replaced.
"""

from __future__ import annotations

import argparse
import html
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.answer_path import django_on_fresh_database

TARGET = 1.5
FIELD = re.compile(r'<input[^>]*name="(?P<name>[^"]+)"[^>]*value="(?P<value>[^"]*)"')
ANSWER_FORM = re.compile(r'action="(?P<action>/review/answer/\d+/)"(?P<body>.*?)</form>', re.S)


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    began = time.perf_counter()
    result = call()
    return time.perf_counter() - began, result


def web_review_step(client: Any) -> float:
    seconds, page = timed(lambda: client.get("/review/", secure=True))
    assert page.status_code == 200, page.status_code
    form = ANSWER_FORM.search(page.content.decode())
    assert form is not None, "the review page shows a card to answer"
    fields = {m["name"]: html.unescape(m["value"]) for m in FIELD.finditer(form["body"])}
    fields["response"] = "0.5"
    fields.setdefault("elapsed_ms", "4000")
    more, answered = timed(lambda: client.post(form["action"], fields, secure=True))
    assert answered.status_code in (200, 303), answered.status_code
    return seconds + more


def api_review_step(client: Any, token: str) -> float:
    auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
    seconds, queue = timed(
        lambda: client.get("/api/v1/reviews/queue/?limit=1", secure=True, **auth)
    )
    assert queue.status_code == 200, queue.status_code
    question = queue.json()["cards"][0]["question"]
    body: dict[str, Any] = {"response": "0.5", "duration_ms": 4000}
    if question.get("variant"):
        body["variant"] = question["variant"]["token"]
    more, answered = timed(
        lambda: client.post(
            f"/api/v1/questions/{question['id']}/answers/",
            body,
            content_type="application/json",
            secure=True,
            **auth,
        )
    )
    assert answered.status_code == 201, (answered.status_code, answered.content[:300])
    return seconds + more


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=150)
    options = parser.parse_args()
    django_on_fresh_database(
        DEBUG="0",
        SECRET_KEY="bench-" + "x" * 60,
        ALLOWED_HOSTS="testserver",
        THROTTLE_ANSWERS="1000000/min",
    )
    from django.test import Client
    from django.utils import timezone

    from accounts.models import User
    from accounts.services import token_create
    from course.models import Lesson
    from reviews.deck import deck_refresh

    lesson = Lesson.objects.select_related("course").order_by("number").first()
    assert lesson is not None
    lesson_page = f"/courses/{lesson.course.slug}/{lesson.slug}/"
    lesson_api = f"/api/v1/lessons/{lesson.slug}/"

    # One request handler for every client, its middleware loaded before any timing, as a
    # server process loads it once (a test client otherwise loads it on its first request).
    warm = Client()
    assert warm.get("/robots.txt", secure=True).status_code == 200
    handler = warm.handler

    def learner(n: int, side: str) -> tuple[Any, str]:
        user = User.objects.create_user(f"{side}{n}", password="bench-password-123")
        deck_refresh(user=user, now=timezone.now())
        client = Client()
        client.handler = handler
        client.force_login(user)
        return client, token_create(user=user)[1]

    times: dict[str, list[float]] = {name: [] for name in ("lesson", "review", "stats")}
    api_times: dict[str, list[float]] = {name: [] for name in ("lesson", "review", "stats")}
    for n in range(options.learners):
        web, _ = learner(n, "web")
        api, token = learner(n, "api")
        auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
        # Alternate which side goes first, so neither always meets a warmer cache.
        order = [("web", web), ("api", api)] if n % 2 else [("api", api), ("web", web)]
        for side, client in order:
            if side == "web":
                times["lesson"].append(timed(lambda c=client: c.get(lesson_page, secure=True))[0])
                times["review"].append(web_review_step(client))
                times["stats"].append(timed(lambda c=client: c.get("/stats/", secure=True))[0])
            else:
                api_times["lesson"].append(
                    timed(lambda c=client, a=auth: c.get(lesson_api, secure=True, **a))[0]
                )
                api_times["review"].append(api_review_step(client, token))
                api_times["stats"].append(
                    timed(lambda c=client, a=auth: c.get("/api/v1/stats/", secure=True, **a))[0]
                )

    print(f"{options.learners} learners a side; median server time, ms (target ratio <= {TARGET})")
    print(f"{'':<14}{'web':>10}{'API':>10}{'ratio':>10}")
    worst = 0.0
    for name in ("lesson", "review", "stats"):
        web_ms = statistics.median(times[name][5:]) * 1000  # the first few warm the caches
        api_ms = statistics.median(api_times[name][5:]) * 1000
        ratio = web_ms / api_ms
        worst = max(worst, ratio)
        print(f"{name:<14}{web_ms:>10.2f}{api_ms:>10.2f}{ratio:>10.2f}")
    web_rate = 1 / statistics.median(times["review"][5:])
    api_rate = 1 / statistics.median(api_times["review"][5:])
    print(
        f"review steps per second, one learner after another: web {web_rate:.0f}, "
        f"API {api_rate:.0f}, web/API {web_rate / api_rate:.2f}"
    )
    print(f"target: every ratio <= {TARGET}: {'met' if worst <= TARGET else 'not met'}")


if __name__ == "__main__":
    main()
