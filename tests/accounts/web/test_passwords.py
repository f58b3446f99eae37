"""A forgotten password by e-mail, and changing it in settings: both through the service every
password change uses, so both end the account's other sessions and device tokens."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from knox.models import AuthToken

from accounts import services
from tests.accounts.web.conftest import error_summary, text_of
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

NEW = "a brand new passphrase"


def reset_link() -> str:
    (message,) = mail.outbox
    return re.search(r"https://residual\.example(/password-reset/\S+/)", message.body).group(1)


def test_asking_for_a_reset_sends_a_link_to_the_sites_address(web, settings):
    settings.SITE_URL = "https://residual.example"
    user = UserFactory(email="ada@example.com")

    response = web.post("/password-reset/", {"email": "ADA@example.com"})

    assert response.status_code == 303
    assert response["Location"] == "/password-reset/sent/"
    (message,) = mail.outbox
    assert message.to == ["ada@example.com"]
    assert message.subject == "Choose a new password for Residual"
    assert user.username in message.body
    assert reset_link().startswith("/password-reset/")
    assert "Check your e-mail" in text_of(web.get("/password-reset/sent/"))


def test_an_unknown_address_gets_the_same_answer_and_no_e_mail(web):
    response = web.post("/password-reset/", {"email": "nobody@example.com"})

    assert response.status_code == 303
    assert response["Location"] == "/password-reset/sent/"
    assert mail.outbox == []


def test_a_bad_address_is_a_field_error(web):
    nul = web.post("/password-reset/", {"email": "ada\x00@example.com"})
    long = web.post("/password-reset/", {"email": "a" * 250 + "@example.com"})
    empty = web.post("/password-reset/", {"email": ""})

    assert "Null characters are not allowed." in error_summary(nul)
    assert "at most 254 characters" in error_summary(long)
    assert "This field is required." in error_summary(empty)
    assert mail.outbox == []


def test_the_link_sets_a_new_password_and_signs_out_everywhere(web, settings):
    settings.SITE_URL = "https://residual.example"
    user = UserFactory(email="ada@example.com")
    other_browser = Client(headers={"X-Forwarded-Proto": "https"})
    other_browser.force_login(user)
    services.token_create(user=user)
    web.post("/password-reset/", {"email": "ada@example.com"})

    form = web.get(reset_link(), follow=True)
    done = web.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})

    assert "Choose a new password" in text_of(form)
    assert done.status_code == 303
    assert done["Location"] == "/password-reset/done/"
    user.refresh_from_db()
    assert user.check_password(NEW)
    assert user.sessions_ended_at is not None
    assert not AuthToken.objects.filter(user=user).exists()
    assert other_browser.get("/settings/").status_code == 302  # sent to sign in
    assert web.post("/login/", {"username": user.username, "password": NEW}).status_code == 303


def test_the_new_password_meets_the_rules_and_the_link_works_once(web, settings):
    settings.SITE_URL = "https://residual.example"
    user = UserFactory(email="ada@example.com")
    web.post("/password-reset/", {"email": "ada@example.com"})
    link = reset_link()
    form_url = web.get(link, follow=True).redirect_chain[-1][0]

    weak = web.post(form_url, {"new_password1": "12345678", "new_password2": "12345678"})
    nul = web.post(form_url, {"new_password1": "x\x00" * 8, "new_password2": "x\x00" * 8})
    web.post(form_url, {"new_password1": NEW, "new_password2": NEW})
    again = Client(headers={"X-Forwarded-Proto": "https"}).get(link, follow=True)

    assert "This password is too common." in error_summary(weak)
    assert "Null characters are not allowed." in error_summary(nul)
    assert "This link no longer works" in text_of(again)
    user.refresh_from_db()
    assert user.check_password(NEW)


def test_a_forged_link_is_refused(web):
    response = web.get("/password-reset/MQ/abc-123/")

    assert response.status_code == 200
    assert "This link no longer works" in text_of(response)


def test_reset_requests_are_throttled_per_address(web, rates):
    rates("register", "2/hour")
    UserFactory(email="ada@example.com")

    tries = [web.post("/password-reset/", {"email": "ada@example.com"}) for _ in range(3)]

    assert [r.status_code for r in tries] == [303, 303, 429]
    assert len(mail.outbox) == 2


def test_changing_the_password_keeps_this_browser_and_ends_the_others(web, learner):
    other_browser = Client(headers={"X-Forwarded-Proto": "https"})
    other_browser.force_login(learner)
    services.token_create(user=learner)

    response = web.post(
        "/settings/password/",
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )

    assert response.status_code == 303
    assert response["Location"] == "/settings/"
    learner.refresh_from_db()
    assert learner.check_password(NEW)
    assert "Your password is changed" in text_of(web.get("/settings/"))
    assert other_browser.get("/settings/").status_code == 302
    assert not AuthToken.objects.filter(user=learner).exists()


def test_changing_the_password_needs_the_current_one_and_a_good_new_one(web, learner):
    wrong = web.post(
        "/settings/password/",
        {"old_password": "wrong", "new_password1": NEW, "new_password2": NEW},
    )
    mismatch = web.post(
        "/settings/password/",
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW + "!"},
    )
    nul = web.post(
        "/settings/password/",
        {"old_password": "a\x00", "new_password1": NEW, "new_password2": NEW},
    )

    assert "Your old password was entered incorrectly." in error_summary(wrong)
    assert "The two password fields didn’t match." in error_summary(mismatch)
    assert "Null characters are not allowed." in error_summary(nul)
    learner.refresh_from_db()
    assert learner.check_password(PASSWORD)


def test_sign_out_everywhere_ends_every_session_and_token(web, learner):
    other_browser = Client(headers={"X-Forwarded-Proto": "https"})
    other_browser.force_login(learner)
    services.token_create(user=learner)

    refused = web.get("/settings/sign-out-everywhere/")
    response = web.post("/settings/sign-out-everywhere/")

    assert refused.status_code == 405
    assert response.status_code == 303
    assert response["Location"] == "/login/"
    assert "You are signed out on every device" in text_of(web.get("/login/"))
    assert web.get("/settings/").status_code == 302
    assert other_browser.get("/settings/").status_code == 302
    assert not AuthToken.objects.filter(user=learner).exists()
