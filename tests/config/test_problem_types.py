"""A problem's `type` is an absolute address that opens a page describing the problem, and
every kind of problem the code can send has one."""

import inspect
import re
from pathlib import Path

import pytest
from django.conf import settings

from config import problems
from config.problem_types import PROBLEM_TYPES
from quizzes import errors as grading_errors
from reviews import errors as recording_errors
from reviews.api.answers import refusal_problem
from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(settings.BASE_DIR)
SOURCES = [
    path
    for path in ROOT.glob("*/**/*.py")
    if path.parts[len(ROOT.parts)] not in {"tests", "bench", ".venv"}
    and "migrations" not in path.parts
]
# slug="not-found" where a problem is raised; the `slug_field=` of serializers does not match.
LITERAL_SLUG = re.compile(r"""\bslug=["']([a-z][a-z0-9-]*)["']""")


def refusal_slugs() -> set[str]:
    """The answer path names its problems after the refusal's code: make each refusal."""
    makers = [
        make
        for module in (grading_errors, recording_errors)
        for _, make in inspect.getmembers(module, inspect.isfunction)
        if make.__module__ == module.__name__
    ]
    return {
        refusal_problem(make(**dict.fromkeys(inspect.signature(make).parameters, "x"))).slug
        for make in makers
    }


def slugs_in_the_code() -> set[str]:
    literal = {slug for path in SOURCES for slug in LITERAL_SLUG.findall(path.read_text())}
    kinds = {slug for _, slug, _ in problems._KINDS}
    return literal | kinds | refusal_slugs() | {"error"}


def test_the_code_names_the_problems_it_raises():
    assert {"not-found", "pro-required", "unreadable-number", "service-unavailable"} <= (
        slugs_in_the_code()
    )


def test_every_problem_the_code_can_send_is_registered():
    assert slugs_in_the_code() <= set(PROBLEM_TYPES)


@pytest.mark.parametrize("slug", sorted(PROBLEM_TYPES))
def test_every_problem_type_has_a_page_for_people(api, slug):
    response = api.get(f"/problems/{slug}/", headers={"Accept": "text/html"})

    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/html")
    page = response.text
    assert f"<h1>{PROBLEM_TYPES[slug].title}</h1>".replace("'", "&#x27;") in page
    assert "What to do" in page
    assert "<script" not in page
    assert " style=" not in page


@pytest.mark.parametrize("slug", sorted(PROBLEM_TYPES))
def test_every_problem_type_has_a_page_for_programs(api, slug):
    response = api.get(f"/problems/{slug}/", headers={"Accept": "application/json"})

    body = response.json()
    assert body["type"] == f"{settings.SITE_URL}/problems/{slug}/"
    assert body["title"] == PROBLEM_TYPES[slug].title
    assert body["what_to_do"]


def test_the_index_lists_every_problem_type(api):
    listed = api.get("/problems/", headers={"Accept": "application/json"}).json()["results"]
    page = api.get("/problems/", headers={"Accept": "text/html"}).text

    assert [kind["type"] for kind in listed] == [
        f"{settings.SITE_URL}/problems/{slug}/" for slug in PROBLEM_TYPES
    ]
    assert all(f'href="{slug}/"' in page for slug in PROBLEM_TYPES)


def test_an_unknown_problem_type_is_not_found(api):
    assert api.get("/problems/no-such-problem/").status_code == 404


def test_a_problem_names_its_type_by_the_sites_absolute_address(api, settings):
    settings.SITE_URL = "https://learn.example.org"

    body = assert_problem(api.get("/api/v1/courses/nope/"), 404)

    assert body["type"] == "https://learn.example.org/problems/not-found/"
