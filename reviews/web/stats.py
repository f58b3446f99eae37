"""The learner's numbers: the page built on the same `learner_stats` as the API's /stats/, each
chart drawn as SVG on the server with a table of the same numbers beside it."""

from __future__ import annotations

from datetime import date

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from reviews.stats import cards_by_state, learner_stats
from reviews.web import charts

STATES = [
    ("New", "new", "waiting to be seen for the first time"),
    ("Learning", "learning", "seen, in short steps before the first long interval"),
    ("Review", "review", "remembered, coming back at growing intervals"),
    ("Relearning", "relearning", "forgotten at a review, being learned again"),
    ("Suspended", "suspended", "kept out of reviews until you bring them back"),
]


@login_required
def stats_page(request: HttpRequest) -> HttpResponse:
    stats = learner_stats(user=request.user, now=timezone.now())
    counts = cards_by_state(user=request.user)  # after learner_stats: it makes the new cards
    year = [(date.fromisoformat(d["date"]), d["reviews"]) for d in stats.heatmap]
    month = [(date.fromisoformat(d["date"]), d["due"]) for d in stats.forecast]
    states = [(label, counts[key], key, meaning) for label, key, meaning in STATES]
    reviewed = sum(n for _, n in year)
    in_queue = counts["learning"] + counts["review"] + counts["relearning"]
    context = {
        "stats": stats,
        "empty": not reviewed and not in_queue and not counts["suspended"],
        "retention": _percent(stats.true_retention),
        "recall": _percent(stats.average_retrievability),
        "year_total": reviewed,
        "year_days": sum(1 for _, n in year if n),
        "heatmap": charts.heatmap(year, chart_id="heatmap"),
        "heat_levels": charts.heat_levels(max((n for _, n in year), default=0)),
        "week_rows": charts.week_rows(charts.heatmap_weeks(year)),
        "forecast": charts.forecast(month, chart_id="forecast"),
        "forecast_rows": charts.forecast_rows(month),
        "forecast_total": sum(n for _, n in month),
        "states": states,
        "states_chart": charts.hbars(
            [(label, count, key) for label, count, key, _ in states],
            chart_id="states",
            summary="Your cards by state: "
            + ", ".join(f"{label.lower()} {count}" for label, count, _, _ in states)
            + ".",
        ),
        "cards_total": counts["new"] + in_queue + counts["suspended"],
    }
    return render(request, "reviews/stats/stats.html", context)


def _percent(share: float | None) -> str | None:
    return None if share is None else f"{round(share * 100)}%"
