"""Shared fixtures. API tests talk HTTP to a live server with a real client (requests)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from django.core.cache import cache
from django.db import connections

from accounts import services as account_services
from accounts.models import User
from config.problem_types import PROBLEM_TYPES, type_uri
from course import revisions
from reviews.web import fragments


@pytest.fixture(autouse=True, scope="session")
def _no_persistent_connections() -> None:
    # The live server answers each request on a new thread; a connection kept open there
    # would outlive the thread and hold the test database open at teardown.
    connections.settings["default"]["CONN_MAX_AGE"] = 0


@pytest.fixture(autouse=True)
def _quick_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["tests.hashers.QuickArgon2PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # Throttle counters live in the cache; every test starts with none, and with nothing kept
    # from the content or the pages' shapes, as a new process.
    cache.clear()
    revisions.forget_kept()
    fragments.shapes.clear()
    yield
    cache.clear()


class Api:
    """A requests session against the live server, as a mobile app or script would use it.

    It says X-Forwarded-Proto: https, as the TLS-terminating proxy does in production.
    """

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        self.session.headers["X-Forwarded-Proto"] = "https"
        self.session.headers["Accept"] = "application/json"

    def url(self, path: str) -> str:
        return self.base_url + path

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        kwargs.setdefault("allow_redirects", False)
        return self.session.request(method, self.url(path), **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, json=json, **kwargs)

    def patch(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("PATCH", path, json=json, **kwargs)

    def delete(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("DELETE", path, json=json, **kwargs)

    def authenticate(self, user: User) -> str:
        _, key = account_services.token_create(user=user)
        self.session.headers["Authorization"] = f"Token {key}"
        return key

    def anonymous(self) -> Api:
        self.session.headers.pop("Authorization", None)
        return self


@pytest.fixture
def api(live_server: Any) -> Api:
    return Api(live_server.url)


@pytest.fixture
def other_api(live_server: Any) -> Api:
    return Api(live_server.url)


def assert_problem(response: requests.Response, status: int, field: str | None = None) -> dict:
    """The response is an RFC 9457 problem with `status`, naming `field` when given; its `type`
    is the absolute address of a registered kind of problem, which has a page of its own."""
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status
    kinds = {type_uri(slug) for slug in PROBLEM_TYPES}
    assert body["type"] in kinds, body["type"]
    assert body["title"]
    assert body["detail"]
    if field is not None:
        assert field in [error["field"] for error in body["errors"]], body
    return body


def closed_port() -> int:
    """A local port nothing listens on: bound by the system, then let go."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# Where a new connection finds no database: a closed port, or a folder that does not exist.
AWAY = {
    "postgresql": lambda port: {"HOST": "127.0.0.1", "PORT": port},
    "sqlite": lambda port: {"NAME": f"/nonexistent-{port}/db.sqlite3"},
}


@pytest.fixture
def take_the_database_away():
    """From the call on, new connections (each live-server request opens its own) go where no
    database is; the test's own connection, already open, is left alone."""
    working = connections.settings["default"]

    def away() -> None:
        moved = AWAY[connections["default"].vendor](closed_port())
        connections.settings["default"] = {**working, **moved}

    yield away
    connections.settings["default"] = working
