"""When a dependency is away: the database down is a 503 with Retry-After on every request,
and the health endpoint says which of database, cache and broker it cannot reach."""

import pytest

from tests.conftest import assert_problem, closed_port
from tests.factories import LessonFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def reachable(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "memory://localhost/"


def test_health_says_each_dependency_is_reached(api, reachable):
    response = api.get("/api/v1/health/")

    assert response.status_code == 200, response.text
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok", "broker": "ok"},
    }


def test_health_says_when_tasks_run_in_process_without_a_broker(api, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True

    response = api.get("/api/v1/health/")

    assert response.json()["checks"]["broker"] == "not_configured"
    assert response.json()["status"] == "ok"


def test_health_names_an_unreachable_database_with_a_503(api, reachable, take_the_database_away):
    take_the_database_away()

    response = api.get("/api/v1/health/")

    body = assert_problem(response, 503)
    assert body["checks"] == {"database": "down", "cache": "ok", "broker": "ok"}
    assert int(response.headers["Retry-After"]) > 0


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/v1/me/", None),
        ("GET", "/api/v1/courses/", None),
        ("POST", "/api/v1/reports/", {"lesson": "attention", "message": "A typo."}),
        ("POST", "/api/v1/auth/login/", {"username": "ada", "password": "secret"}),
    ],
)
def test_every_request_while_the_database_is_down_is_a_503_to_retry(
    api, take_the_database_away, method, path, body
):
    LessonFactory(slug="attention")
    api.authenticate(UserFactory())
    take_the_database_away()

    response = api.request(method, path, json=body)

    problem = assert_problem(response, 503)
    assert "service-unavailable" in problem["type"]
    assert int(response.headers["Retry-After"]) > 0


def test_an_unreachable_cache_leaves_the_service_up_but_degraded(api, reachable, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }

    response = api.get("/api/v1/health/")

    assert response.status_code == 200, response.text
    assert response.json() == {
        "status": "degraded",
        "checks": {"database": "ok", "cache": "down", "broker": "ok"},
    }


def test_an_unreachable_broker_leaves_the_service_up_but_degraded(api, reachable, settings):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port()}/0"

    response = api.get("/api/v1/health/")

    assert response.status_code == 200, response.text
    assert response.json() == {
        "status": "degraded",
        "checks": {"database": "ok", "cache": "ok", "broker": "down"},
    }
