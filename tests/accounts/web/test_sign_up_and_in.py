"""Signing up, in and out on the web: the API's rules (look-alike names, password validators,
the per-address throttles, the per-username lockout) and a session at the end."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import Client
from knox.models import AuthToken

from accounts.models import User
from tests.accounts.web.conftest import error_summary, text_of
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def sign_up(web, **fields):
    return web.post("/signup/", {"username": "ada", "password": PASSWORD, **fields})


def test_the_sign_up_page_asks_for_a_name_an_email_and_a_password(web):
    response = web.get("/signup/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1>Create an account</h1>" in page
    assert 'autocomplete="username"' in page
    assert 'autocomplete="new-password"' in page
    assert 'name="csrfmiddlewaretoken"' in page
    assert "At least" in text_of(response) or "at least" in text_of(response)


def test_signing_up_makes_the_account_signs_it_in_and_goes_home(web):
    response = sign_up(web, email="ada@example.com")

    assert response.status_code == 303
    assert response["Location"] == "/"
    user = User.objects.get(username="ada")
    assert user.email == "ada@example.com"
    assert web.session["_auth_user_id"] == str(user.pk)
    assert not AuthToken.objects.filter(user=user).exists()
    assert "Welcome to Residual, ada" in text_of(web.get("/"))


def test_signing_up_goes_on_to_a_page_on_this_site_but_not_elsewhere(web):
    onwards = web.post("/signup/?next=/settings/", {"username": "ada", "password": PASSWORD})
    web.logout()
    away = web.post(
        "/signup/?next=https://evil.example/", {"username": "bea", "password": PASSWORD}
    )

    assert onwards["Location"] == "/settings/"
    assert away["Location"] == "/"


def test_a_look_alike_of_a_taken_username_is_refused(web):
    UserFactory(username="alice")

    responses = [sign_up(web, username=name) for name in ("ALICE", "ａｌｉｃｅ", "Alice")]

    for response in responses:
        assert response.status_code == 200
        assert "That username is taken." in error_summary(response)
    assert User.objects.count() == 1


def test_a_weak_password_and_a_bad_name_are_field_errors(web):
    response = sign_up(web, username="no spaces!", password="12345678")

    summary = error_summary(response)
    assert response.status_code == 200
    assert "Use letters, digits and @ . + - _ only." in summary
    assert "This password is too common." in summary
    assert 'href="#id_username"' in response.content.decode()
    assert not User.objects.exists()


def test_nul_bytes_and_overlong_input_are_field_errors(web):
    nul = sign_up(web, username="ada\x00", email="a\x00@example.com", password="x\x00" * 10)
    long = sign_up(web, username="a" * 151, password="p" * 129)

    assert nul.status_code == 200
    assert "Null characters are not allowed." in error_summary(nul)
    assert long.status_code == 200
    assert "at most 150 characters" in error_summary(long)
    assert "at most 128 characters" in error_summary(long)
    assert not User.objects.exists()


def test_sign_ups_share_the_apis_budget_per_address(rates):
    rates("register", "2/hour")
    browsers = [Client(headers={"X-Forwarded-Proto": "https"}) for _ in range(3)]

    responses = [sign_up(browser, username=f"ada{n}") for n, browser in enumerate(browsers)]

    assert [r.status_code for r in responses] == [303, 303, 429]
    assert "Too many tries" in text_of(responses[2])
    assert int(responses[2]["Retry-After"]) > 0
    assert not User.objects.filter(username="ada2").exists()


def test_a_signed_in_learner_asking_to_sign_up_goes_home(web, learner):
    response = web.get("/signup/")

    assert response.status_code == 303
    assert response["Location"] == "/"


def test_signing_in_with_a_look_alike_of_the_name_finds_the_account(web):
    user = UserFactory(username="ada")

    response = web.post("/login/", {"username": "ＡＤＡ", "password": PASSWORD})

    assert response.status_code == 303
    assert response["Location"] == "/"
    assert web.session["_auth_user_id"] == str(user.pk)


def test_signing_in_goes_on_to_the_page_asked_for(web):
    user = UserFactory()

    response = web.post(
        "/login/", {"username": user.username, "password": PASSWORD, "next": "/settings/"}
    )

    assert response["Location"] == "/settings/"


def test_a_wrong_password_says_so_without_telling_whether_the_name_exists(web):
    user = UserFactory()

    wrong = web.post("/login/", {"username": user.username, "password": "wrong"})
    nobody = web.post("/login/", {"username": "nobody-by-that-name", "password": "wrong"})

    for response in (wrong, nobody):
        assert response.status_code == 200
        assert "The username and password do not match an account." in error_summary(response)
    assert "_auth_user_id" not in web.session


def test_sign_in_fields_refuse_nul_bytes_and_overlong_input(web):
    nul = web.post("/login/", {"username": "ada\x00", "password": "x"})
    long = web.post("/login/", {"username": "a", "password": "p" * 129})

    assert "Null characters are not allowed." in error_summary(nul)
    assert "at most 128 characters" in error_summary(long)
    assert not AccessAttempt.objects.exists()


def test_repeated_failures_lock_the_username_with_a_page_that_says_when(web, settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = UserFactory()

    failures = [
        web.post("/login/", {"username": user.username, "password": f"guess {n}"}) for n in range(3)
    ]
    right = web.post("/login/", {"username": user.username.upper(), "password": PASSWORD})

    assert [r.status_code for r in failures] == [200, 200, 429]
    assert right.status_code == 429
    assert right["Content-Type"].startswith("text/html")
    assert "Too many failed sign-ins for this username. Try again in 15 minutes." in (
        error_summary(right)
    )
    assert 0 < int(right["Retry-After"]) <= 15 * 60
    assert "<h1>Sign in</h1>" in right.content.decode()
    assert "_auth_user_id" not in web.session


def test_failures_through_the_api_lock_the_web_sign_in_too(web, settings):
    settings.AXES_FAILURE_LIMIT = 2
    user = UserFactory()
    api = Client(headers={"X-Forwarded-Proto": "https"})
    for n in range(2):
        api.post(
            "/api/v1/auth/login/",
            {"username": user.username, "password": f"guess {n}"},
            content_type="application/json",
        )

    response = web.post("/login/", {"username": user.username, "password": PASSWORD})

    assert response.status_code == 429
    assert "_auth_user_id" not in web.session


def test_sign_in_tries_share_the_apis_budget_per_address(web, rates):
    rates("login", "2/min")
    user = UserFactory()

    tries = [web.post("/login/", {"username": user.username, "password": "x"}) for _ in range(3)]

    assert [r.status_code for r in tries] == [200, 200, 429]
    assert "Too many tries" in text_of(tries[2])


def test_signing_out_is_a_post_that_ends_the_session(web, learner):
    refused = web.get("/logout/")
    signed_out = web.post("/logout/")

    assert refused.status_code == 405
    assert signed_out.status_code == 302
    assert signed_out["Location"] == "/"
    assert "_auth_user_id" not in web.session


def test_forms_need_their_csrf_token():
    browser = Client(enforce_csrf_checks=True, headers={"X-Forwarded-Proto": "https"})
    user = UserFactory()

    response = browser.post("/login/", {"username": user.username, "password": PASSWORD})

    assert response.status_code == 403
    assert "_auth_user_id" not in browser.session
