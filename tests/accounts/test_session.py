"""The web app signs in with a session cookie and sends CSRF tokens on writes."""

import pytest
from django.test import Client

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser():
    # A browser on https behind the TLS proxy, as in production: it names the host and its
    # origin on every request, and keeps the cookies marked Secure.
    return Client(
        enforce_csrf_checks=True,
        headers={
            "Host": "testserver",
            "X-Forwarded-Proto": "https",
            "Origin": "https://testserver",
        },
    )


def sign_in(browser, user) -> str:
    browser.get("/api/v1/auth/csrf/")
    csrf = browser.cookies["csrftoken"].value
    response = browser.post(
        "/api/v1/auth/login/",
        {"username": user.username, "password": PASSWORD, "session": True},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert response.status_code == 200, response.content
    assert "sessionid" in browser.cookies
    return browser.cookies["csrftoken"].value


def test_a_session_reads_and_writes_with_its_csrf_token(browser):
    user = UserFactory()
    csrf = sign_in(browser, user)

    me = browser.get("/api/v1/me/")
    changed = browser.patch(
        "/api/v1/me/",
        {"reminder_hour": 9},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )

    assert me.json()["username"] == user.username
    assert changed.status_code == 200
    assert changed.json()["reminder_hour"] == 9


def test_a_session_write_without_csrf_is_a_403_problem(browser):
    sign_in(browser, UserFactory())

    response = browser.patch("/api/v1/me/", {"reminder_hour": 9}, content_type="application/json")

    assert response.status_code == 403
    assert response["Content-Type"] == "application/problem+json"
    assert "CSRF" in response.json()["detail"]


def test_session_cookies_are_secure_and_http_only(browser):
    sign_in(browser, UserFactory())

    session = browser.cookies["sessionid"]
    assert session["secure"]
    assert session["httponly"]
    assert session["samesite"] == "Lax"


def test_logout_ends_the_session(browser):
    csrf = sign_in(browser, UserFactory())

    response = browser.post(
        "/api/v1/auth/logout/", content_type="application/json", headers={"X-CSRFToken": csrf}
    )

    assert response.status_code == 204
    assert browser.get("/api/v1/me/").status_code == 401
