"""Sign-in and sign-up limits: per client address (never a header the client controls) and
per username, whatever the address; answers never tell whether an account exists."""

import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client

from config.problem_types import type_uri
from config.throttles import SimpleRateThrottle
from tests.conftest import assert_problem
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

LOGIN = "/api/v1/auth/login/"


@pytest.fixture
def rates(monkeypatch):
    def set_rate(scope: str, rate: str) -> None:
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)

    return set_rate


def from_address(address: str, spoofed: str = "192.0.2.99") -> dict[str, str]:
    """Headers of a request that reached the service through one proxy, which appended the
    address it saw to whatever the client sent."""
    return {"X-Forwarded-For": f"{spoofed}, {address}"}


def test_a_spoofed_forwarded_for_does_not_reset_the_login_budget(api, rates):
    rates("login", "3/min")
    attempts = [
        api.post(
            LOGIN,
            {"username": "ada", "password": "wrong"},
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
        )
        for n in range(4)
    ]

    assert [r.status_code for r in attempts] == [400, 400, 400, 429]
    assert_problem(attempts[3], 429)


def test_a_spoofed_forwarded_for_does_not_reset_the_sign_up_budget(api, rates):
    rates("register", "2/min")
    attempts = [
        api.post(
            "/api/v1/auth/register/",
            {"username": f"ada{n}", "password": PASSWORD},
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
        )
        for n in range(3)
    ]

    assert [r.status_code for r in attempts] == [201, 201, 429]


def test_behind_one_proxy_the_address_it_saw_is_the_client(api, rates, settings):
    settings.NUM_PROXIES = 1
    rates("login", "2/min")
    body = {"username": "ada", "password": "wrong"}

    first = api.post(LOGIN, body, headers=from_address("203.0.113.5", spoofed="10.0.0.1"))
    second = api.post(LOGIN, body, headers=from_address("203.0.113.5", spoofed="10.0.0.2"))
    third = api.post(LOGIN, body, headers=from_address("203.0.113.5", spoofed="10.0.0.3"))
    elsewhere = api.post(LOGIN, body, headers=from_address("203.0.113.6", spoofed="10.0.0.1"))

    assert [r.status_code for r in (first, second, third)] == [400, 400, 429]
    assert elsewhere.status_code == 400


def test_failed_logins_on_one_username_from_many_addresses_are_refused(api, settings):
    settings.NUM_PROXIES = 1
    settings.AXES_FAILURE_LIMIT = 3
    user = UserFactory()

    failures = [
        api.post(
            LOGIN,
            {"username": user.username, "password": f"guess {n}"},
            headers=from_address(f"203.0.113.{n}"),
        )
        for n in range(4)
    ]
    right = api.post(
        LOGIN,
        {"username": user.username, "password": PASSWORD},
        headers=from_address("203.0.113.200"),
    )

    assert [r.status_code for r in failures] == [400, 400, 429, 429]
    body = assert_problem(right, 429)
    assert body["type"] == type_uri("too-many-failed-sign-ins")
    assert 0 < int(right.headers["Retry-After"]) <= 15 * 60
    assert f"Try again in {right.headers['Retry-After']} seconds" in body["detail"]
    assert right.headers["RateLimit-Policy"].endswith('"sign-in-failures";q=3;w=900')
    assert '"sign-in-failures";r=0;t=' in right.headers["RateLimit"]
    assert "token" not in right.json()


def test_the_owner_signs_in_again_once_the_cool_off_has_passed(api, settings):
    settings.AXES_FAILURE_LIMIT = 2
    user = UserFactory()
    for n in range(2):
        api.post(LOGIN, {"username": user.username, "password": f"guess {n}"})

    refused = api.post(LOGIN, {"username": user.username, "password": PASSWORD})
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=15, seconds=1)
    )
    signed_in = api.post(LOGIN, {"username": user.username, "password": PASSWORD})

    assert_problem(refused, 429)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["token"]


def test_tries_during_the_lock_do_not_extend_it(api, settings):
    settings.AXES_FAILURE_LIMIT = 2
    user = UserFactory()
    for n in range(2):
        api.post(LOGIN, {"username": user.username, "password": f"guess {n}"})
    locked_at = AccessAttempt.objects.get().attempt_time

    for n in range(3):
        api.post(LOGIN, {"username": user.username, "password": f"more {n}"})

    assert AccessAttempt.objects.get().attempt_time == locked_at
    assert AccessAttempt.objects.get().failures_since_start == 2


def test_the_answers_are_the_same_whether_or_not_the_account_exists(api, settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = UserFactory()

    def attempts(username: str) -> list[tuple[int, str, str]]:
        responses = [api.post(LOGIN, {"username": username, "password": "wrong"}) for _ in range(5)]
        return [
            (r.status_code, r.json()["type"], re.sub(r"\d+", "N", r.json()["detail"]))
            for r in responses
        ]

    real = attempts(user.username)
    nobody = attempts("nobody-by-this-name")

    assert real == nobody
    assert [status for status, _, _ in real] == [400, 400, 429, 429, 429]


def test_a_username_is_counted_whatever_its_case_and_spacing(api, settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = UserFactory(username="ada")

    for typed in ("Ada", "ADA ", " ada"):
        api.post(LOGIN, {"username": typed, "password": "wrong"})
    right = api.post(LOGIN, {"username": "ada", "password": PASSWORD})

    assert_problem(right, 429)
    assert user.username == "ada"


def test_the_admin_login_is_locked_by_failures_anywhere(api, settings):
    settings.AXES_FAILURE_LIMIT = 2
    staff = UserFactory(is_staff=True, is_superuser=True)
    admin = Client(headers={"X-Forwarded-Proto": "https"})

    api.post(LOGIN, {"username": staff.username, "password": "wrong"})
    wrong = admin.post("/admin/login/", {"username": staff.username, "password": "wrong"})
    right = admin.post("/admin/login/", {"username": staff.username, "password": PASSWORD})

    assert wrong.status_code == 429
    assert right.status_code == 429
    assert int(right["Retry-After"]) > 0
    assert "_auth_user_id" not in admin.session


def test_throttled_endpoints_say_their_policy_and_what_is_left(api, rates):
    rates("login", "2/min")
    body = {"username": "ada", "password": "wrong"}

    first = api.post(LOGIN, body)
    second = api.post(LOGIN, body)
    refused = api.post(LOGIN, body)

    assert first.headers["RateLimit-Policy"] == '"login";q=2;w=60'
    assert first.headers["RateLimit"] == '"login";r=1;t=60'
    assert second.headers["RateLimit"] == '"login";r=0;t=60'
    assert_problem(refused, 429)
    assert refused.headers["RateLimit-Policy"] == '"login";q=2;w=60'
    remaining, reset = re.fullmatch(
        r'"login";r=(\d+);t=(\d+)', refused.headers["RateLimit"]
    ).groups()
    assert remaining == "0"
    assert 0 < int(reset) <= int(refused.headers["Retry-After"])


def test_a_post_without_its_trailing_slash_is_a_404_naming_the_right_path(api):
    response = api.post("/api/v1/auth/login", {"username": "ada", "password": "x"})

    body = assert_problem(response, 404)
    assert "/api/v1/auth/login/" in body["detail"]
    assert "Location" not in response.headers
