"""The site's shell over HTTP: the home page for a visitor and a learner, the error pages in
the site's layout (problem documents stay under /api/), the maintenance page while the database
is away, the strict CSP on pages."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from course.models import LessonProgress
from tests.factories import LessonFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def page(api, path):
    return api.get(path, headers={"Accept": "text/html"})


def visit(client, path):
    return client.get(path, secure=True, headers={"Accept": "text/html"})


def test_a_visitor_gets_a_page_that_says_what_residual_is(api):
    LessonFactory(course__title="How transformers work")

    response = page(api, "/")

    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    assert "Learn how transformers work" in response.text
    assert "How transformers work" in response.text
    assert 'href="/login/"' in response.text


def test_pages_carry_the_strict_content_security_policy(api):
    response = page(api, "/")

    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy
    assert "<script>" not in response.text
    assert " style=" not in response.text


def test_a_learner_sees_todays_work_and_where_they_left_off(client):
    learner = UserFactory()
    lesson = LessonFactory(title="Attention, step by step")
    QuestionFactory.create_batch(3, lesson=lesson)
    LessonProgress.objects.create(user=learner, lesson=lesson, started_at=timezone.now())
    client.force_login(learner)

    response = visit(client, "/")
    text = re.sub(r"<[^>]+>", "", response.content.decode())

    assert response.status_code == 200
    assert "Today" in text
    assert "3 cards to study" in text
    assert "Continue where you left off" in text
    assert "Attention, step by step" in text
    assert "Streak" in text


def test_the_home_page_costs_the_same_queries_for_a_small_and_a_large_deck(client):
    def queries_for(questions: int) -> int:
        learner = UserFactory()
        lesson = LessonFactory()
        QuestionFactory.create_batch(questions, lesson=lesson)
        LessonProgress.objects.create(
            user=learner, lesson=lesson, started_at=timezone.now() - timedelta(days=1)
        )
        client.force_login(learner)
        visit(client, "/")  # the deck is made on the first visit
        with CaptureQueriesContext(connection) as queries:
            assert visit(client, "/").status_code == 200
        return len(queries)

    assert queries_for(2) == queries_for(20)


def test_an_unknown_page_is_a_page_and_an_unknown_api_path_a_problem(api):
    html = page(api, "/no/such/page/")
    problem = api.get("/api/v1/no/such/thing/")

    assert html.status_code == 404
    assert "Page not found" in html.text
    assert "<html" in html.text
    assert problem.status_code == 404
    assert problem.headers["Content-Type"] == "application/problem+json"


def test_while_the_database_is_away_pages_get_the_maintenance_page(api, take_the_database_away):
    take_the_database_away()

    response = page(api, "/")

    assert response.status_code == 503
    assert int(response.headers["Retry-After"]) > 0
    assert "Back in a moment" in response.text
    assert "<html" in response.text


def test_robots_keep_crawlers_to_the_public_pages(api):
    response = api.get("/robots.txt")

    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain")
    assert "Disallow: /api/" in response.text
    assert "Disallow: /review/" in response.text
