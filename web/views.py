"""The home page: what Residual is for a visitor; today's work for a learner."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from classrooms.selectors import learner_classes
from course.selectors import course_list, lesson_to_continue
from reviews.stats import answer_pace_ms, learner_stats

# Seconds an answer takes a learner with no timed answers yet: a review, a first sight.
TYPICAL_SECONDS = 12


def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "web/home.html", {"courses": list(course_list())})
    now = timezone.now()
    stats = learner_stats(user=request.user, now=now)
    todo = stats.due_today + stats.new_available
    return render(
        request,
        "web/home.html",
        {
            "stats": stats,
            "todo": todo,
            "minutes": _minutes(request.user, todo),
            "continue_lesson": lesson_to_continue(user=request.user),
            "courses": list(course_list()),
            "classes": learner_classes(user=request.user),  # type: ignore[arg-type]
            "now": now,
        },
    )


ROBOTS = """User-agent: *
Disallow: /api/
Disallow: /settings/
Disallow: /review/
Disallow: /practice/
Disallow: /stats/
Disallow: /cards/
Disallow: /notifications/
"""


def robots(request: HttpRequest) -> HttpResponse:
    """The public pages are the home page, the course and its lessons; the rest is personal."""
    return HttpResponse(ROBOTS, content_type="text/plain; charset=utf-8")


def _minutes(user: Any, cards: int) -> int:
    """Minutes for `cards` answers at the learner's own recent pace."""
    if not cards:
        return 0
    average = answer_pace_ms(user=user)
    seconds = (average / 1000) if average else TYPICAL_SECONDS
    return max(1, round(cards * min(seconds, 120) / 60))
