"""Devices (the API's tokens) with revoke, the export download, and deleting the account."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from knox.models import AuthToken

from accounts import services
from accounts.models import Notification, User
from tests.accounts.web.conftest import error_summary, text_of
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_the_devices_page_lists_when_each_signed_in_and_never_the_token(web, learner):
    token, key = services.token_create(user=learner)

    response = web.get("/settings/devices/")
    page = response.content.decode()

    assert response.status_code == 200
    assert key[:8] in page
    assert key not in page
    assert key[8:15] not in page
    assert token.created.strftime("%-d %b %Y") in text_of(response)
    assert token.expiry.strftime("%-d %b %Y") in text_of(response)
    assert "Revoke" in page


def test_with_no_device_the_page_says_so(web, learner):
    response = web.get("/settings/devices/")

    assert "No device is signed in to your account with a key." in text_of(response)


def test_revoking_a_device_ends_its_token_only(web, learner, api):
    revoked, revoked_key = services.token_create(user=learner)
    _, kept_key = services.token_create(user=learner)

    response = web.post("/settings/devices/revoke/", {"device": revoked.digest})

    assert response.status_code == 303
    assert response["Location"] == "/settings/devices/"
    assert "That device is signed out." in text_of(web.get("/settings/devices/"))
    api.session.headers["Authorization"] = f"Token {revoked_key}"
    assert api.get("/api/v1/me/").status_code == 401
    api.session.headers["Authorization"] = f"Token {kept_key}"
    assert api.get("/api/v1/me/").status_code == 200


@pytest.mark.parametrize("device", ["another's", "", "x\x00", "f" * 129, "no-such-digest"])
def test_revoking_another_learners_or_no_device_is_a_404(web, learner, device):
    other, _ = services.token_create(user=UserFactory())
    digest = other.digest if device == "another's" else device

    response = web.post("/settings/devices/revoke/", {"device": digest})

    assert response.status_code == 404
    assert AuthToken.objects.filter(pk=other.pk).exists()


def test_revoking_is_a_post(web, learner):
    assert web.get("/settings/devices/revoke/").status_code == 405


def test_the_devices_page_costs_the_same_queries_for_few_and_many_devices(web, settings):
    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_LIMIT_PER_USER": 50}

    def queries_for(rows: int) -> int:
        user = UserFactory()
        for _ in range(rows):
            services.token_create(user=user)
        web.force_login(user)
        with CaptureQueriesContext(connection) as queries:
            assert web.get("/settings/devices/").status_code == 200
        return len(queries)

    assert queries_for(2) == queries_for(20)


def test_the_export_page_explains_and_downloads_what_the_api_exports(web, learner):
    services.token_create(user=learner)
    api = Client(headers={"X-Forwarded-Proto": "https"})
    api.force_login(learner)

    page = web.get("/settings/export/")
    download = web.post("/settings/export/")
    from_api = api.get("/api/v1/me/export/")

    assert page.status_code == 200
    assert "Download my data" in text_of(page)
    assert download.status_code == 200
    assert download["Content-Type"] == "application/json"
    assert download["Content-Disposition"].startswith('attachment; filename="residual-export-')
    assert download["Cache-Control"] == "no-store"
    assert download.streaming  # written as it is read
    assert from_api.streaming
    mine = json.loads(b"".join(download.streaming_content))
    theirs = json.loads(b"".join(from_api.streaming_content))
    mine.pop("exported_at"), theirs.pop("exported_at")
    assert mine == theirs
    assert mine["profile"]["username"] == learner.username


def test_the_export_is_only_for_the_signed_in_learner(web):
    response = web.post("/settings/export/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_deleting_the_account_needs_the_password(web, learner):
    wrong = web.post("/settings/delete/", {"password": "wrong"})
    nul = web.post("/settings/delete/", {"password": "a\x00"})
    long = web.post("/settings/delete/", {"password": "p" * 129})

    assert "The password is not right; the account was not deleted." in error_summary(wrong)
    assert "Null characters are not allowed." in error_summary(nul)
    assert "at most 128 characters" in error_summary(long)
    assert User.objects.filter(pk=learner.pk).exists()


def test_deleting_the_account_removes_it_and_signs_out(web, learner):
    Notification.objects.create(user=learner, kind="reminder", key="k", title="t", body="b")

    response = web.post("/settings/delete/", {"password": PASSWORD})

    assert response.status_code == 303
    assert response["Location"] == "/"
    assert not User.objects.filter(pk=learner.pk).exists()
    assert not Notification.objects.exists()
    home = web.get("/")
    assert "Your account and everything in it are deleted." in text_of(home)
    assert "_auth_user_id" not in web.session


def test_password_guesses_on_the_delete_page_are_throttled(web, learner, rates):
    rates("login", "2/min")

    tries = [web.post("/settings/delete/", {"password": "guess"}) for _ in range(3)]

    assert [r.status_code for r in tries] == [200, 200, 429]
