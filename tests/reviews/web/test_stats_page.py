"""The stats page: the API's numbers, drawn as SVG that parses, with tables that say the same;
the same queries however much the learner has done; an empty state for a new learner."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviews.web import charts
from tests.factories import LessonFactory, QuestionFactory, UserFactory
from tests.reviews.web.helpers import answered

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def visit(client, path):
    return client.get(path, secure=True, headers={"Accept": "text/html"})


def svg(html: str, chart_id: str) -> ET.Element:
    match = re.search(rf'<svg [^>]*id="{chart_id}".*?</svg>', html, re.S)
    assert match, f"no chart {chart_id}"
    return ET.fromstring(match.group(0))


def marks(chart: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in chart.iter(f"{SVG}rect") if cls in e.get("class", "").split()]


def table_after(html: str, heading_id: str) -> list[list[str]]:
    section = html[html.index(f'id="{heading_id}"') :]
    body = section[section.index("<tbody>") : section.index("</tbody>")]
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)
        ]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


@pytest.fixture
def learner_with_history():
    """A learner who answered over the past weeks: some right, one wrong, cards coming due."""
    user = UserFactory(timezone="UTC", day_starts_at_hour=4)
    lesson = LessonFactory()
    questions = QuestionFactory.create_batch(4, lesson=lesson)
    now = timezone.now()
    for days_ago, question, right in [
        (20, questions[0], True),
        (9, questions[0], True),
        (9, questions[1], True),
        (2, questions[1], False),
        (1, questions[2], True),
        (0, questions[0], True),
    ]:
        answered(user, question, at=now - timedelta(days=days_ago, minutes=5), right=right)
    return user


def test_the_page_shows_the_same_numbers_as_the_api(client, learner_with_history):
    client.force_login(learner_with_history)
    api = client.get("/api/v1/stats/", secure=True).json()

    response = visit(client, "/stats/")
    html = response.content.decode()

    assert response.status_code == 200
    heat = marks(svg(html, "heatmap"), "heat")
    assert [int(c.get("data-count")) for c in heat] == [d["reviews"] for d in api["heatmap"]]
    assert [c.get("data-date") for c in heat] == [d["date"] for d in api["heatmap"]]
    bars = marks(svg(html, "forecast"), "bar")
    assert [int(b.get("data-count")) for b in bars] == [d["due"] for d in api["forecast"]]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert f"Due for review {api['due_today']} " in text
    assert f"Reviewed today {api['reviews_today']} " in text
    assert f"Streak {api['streak_days']} day" in text
    assert f"True retention {round(api['true_retention'] * 100)}%" in text
    assert f"Chance of recall now {round(api['average_retrievability'] * 100)}%" in text


def test_every_chart_is_well_formed_svg_with_a_mark_per_day(client, learner_with_history):
    client.force_login(learner_with_history)

    html = visit(client, "/stats/").content.decode()

    heatmap, forecast, states = svg(html, "heatmap"), svg(html, "forecast"), svg(html, "states")
    assert len(marks(heatmap, "heat")) == 365
    assert len(marks(forecast, "bar")) == 30
    assert len(marks(states, "hbar")) == 5
    for chart in (heatmap, forecast, states):
        assert chart.get("role") == "img"
        title = chart.find(f"{SVG}title")
        assert title is not None
        assert title.get("id") == chart.get("aria-labelledby")
        assert title.text
    assert all(c.find(f"{SVG}title").text for c in marks(heatmap, "heat"))
    assert "style=" not in html


def test_the_tables_hold_the_numbers_the_charts_draw(client, learner_with_history):
    client.force_login(learner_with_history)
    api = client.get("/api/v1/stats/", secure=True).json()

    html = visit(client, "/stats/").content.decode()

    weeks = table_after(html, "year-title")
    by_day = [int(n) for row in weeks for n in row[1:] if n != ""]
    assert by_day == [d["reviews"] for d in api["heatmap"]]
    forecast = table_after(html, "forecast-title")
    assert [int(row[1]) for row in forecast] == [d["due"] for d in api["forecast"]]
    states = {row[0]: int(row[1]) for row in table_after(html, "states-title")}
    assert states["New"] == 1  # the question never answered
    assert states["Learning"] + states["Review"] + states["Relearning"] == 3
    assert states["Suspended"] == 0


def test_a_new_learner_is_told_what_to_do(client):
    QuestionFactory()
    client.force_login(UserFactory())

    response = visit(client, "/stats/")
    html = response.content.decode()

    assert response.status_code == 200
    assert "No reviews yet" in html
    assert 'id="heatmap"' not in html
    assert "answer the check questions" in html


def test_a_visitor_is_sent_to_sign_in(client):
    response = visit(client, "/stats/")

    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login/")


def test_the_page_costs_the_same_queries_for_5_answers_as_for_50(client):
    def queries_for(answers: int) -> int:
        user = UserFactory()
        questions = QuestionFactory.create_batch(answers // 5, lesson=LessonFactory())
        now = timezone.now()
        for i in range(answers):
            answered(user, questions[i % len(questions)], at=now - timedelta(days=answers - i))
        client.force_login(user)
        visit(client, "/stats/")  # the deck is made on the first visit
        with CaptureQueriesContext(connection) as queries:
            assert visit(client, "/stats/").status_code == 200
        return len(queries)

    assert queries_for(5) == queries_for(50)


def test_heatmap_levels_step_up_to_the_busiest_day():
    assert [charts.heat_level(n, 8) for n in (0, 1, 2, 3, 4, 5, 8)] == [0, 1, 1, 2, 2, 3, 4]
    assert [(lv.level, lv.label) for lv in charts.heat_levels(2)] == [(0, "0"), (2, "1"), (4, "2")]
    assert charts.heat_levels(0) == [charts.Level(0, 0, 0)]


def test_heatmap_weeks_start_on_monday_and_leave_outside_days_blank():
    days = [(date(2025, 3, 5) + timedelta(days=i), i) for i in range(10)]  # a Wednesday on

    weeks = charts.heatmap_weeks(days)

    assert [w.monday for w in weeks] == [date(2025, 3, 3), date(2025, 3, 10)]
    assert weeks[0].counts == (None, None, 0, 1, 2, 3, 4)
    assert weeks[1].counts == (5, 6, 7, 8, 9, None, None)


def test_charts_escape_their_text_and_draw_empty_numbers():
    chart = charts.hbars([("<b>&", 0, "new")], chart_id="x", summary='a "quote" <here>')

    parsed = ET.fromstring(chart)

    assert parsed.find(f"{SVG}title").text == 'a "quote" <here>'
    assert len(marks(ET.fromstring(charts.forecast([], chart_id="f")), "bar")) == 0
    empty = ET.fromstring(charts.forecast([(date(2025, 1, 1), 0)] * 3, chart_id="f"))
    assert [b.get("height") for b in marks(empty, "bar")] == ["0"] * 3
