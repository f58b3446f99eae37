"""Signing out everywhere, and every new password, end every token and browser session."""

import pytest
from django.test import Client
from knox.models import AuthToken

from accounts import services
from tests.conftest import assert_problem
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

NEW_PASSWORD = "a brand new passphrase, long enough"


def browser_session(api, user, password: str = PASSWORD) -> str:
    """The session cookie a web app gets from signing in with `"session": true`."""
    response = api.post(
        "/api/v1/auth/login/", {"username": user.username, "password": password, "session": True}
    )
    assert response.status_code == 200, response.text
    return response.cookies["sessionid"]


def me_with_cookie(api, session_id: str):
    # Sent by hand: the cookie is Secure and the test server speaks plain HTTP.
    return api.anonymous().get("/api/v1/me/", headers={"Cookie": f"sessionid={session_id}"})


def test_logout_all_ends_browser_sessions_as_well_as_tokens(api, other_api):
    user = UserFactory()
    session_id = browser_session(other_api, user)
    assert me_with_cookie(other_api, session_id).status_code == 200
    api.authenticate(user)

    assert api.post("/api/v1/auth/logout-all/").status_code == 204

    assert_problem(me_with_cookie(other_api, session_id), 401)
    assert not AuthToken.objects.filter(user=user).exists()


def test_a_session_signed_in_after_logout_all_works(api, other_api):
    user = UserFactory()
    api.authenticate(user)
    api.post("/api/v1/auth/logout-all/")

    session_id = browser_session(other_api, user)

    assert me_with_cookie(other_api, session_id).json()["username"] == user.username


def test_a_new_password_ends_every_session_and_token(api, other_api):
    user = UserFactory()
    session_id = browser_session(other_api, user)
    api.authenticate(user)

    services.user_password_change(user=user, password=NEW_PASSWORD)

    assert_problem(me_with_cookie(other_api, session_id), 401)
    assert_problem(api.get("/api/v1/me/"), 401)
    assert browser_session(other_api, user, password=NEW_PASSWORD)


def test_staff_setting_a_users_password_in_the_admin_signs_the_user_out(api, other_api, settings):
    user = UserFactory()
    session_id = browser_session(other_api, user)
    api.authenticate(user)
    staff = Client(headers={"X-Forwarded-Proto": "https"})
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))

    response = staff.post(
        f"/admin/accounts/user/{user.pk}/password/",
        {"usable_password": "true", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )

    assert response.status_code == 302, response.content
    assert_problem(me_with_cookie(other_api, session_id), 401)
    assert_problem(api.get("/api/v1/me/"), 401)


def test_staff_turning_password_sign_in_off_signs_the_user_out(api):
    user = UserFactory()
    api.authenticate(user)
    staff = Client(headers={"X-Forwarded-Proto": "https"})
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))

    response = staff.post(
        f"/admin/accounts/user/{user.pk}/password/",
        {"usable_password": "false", "unset-password": "1"},
    )

    assert response.status_code == 302, response.content
    assert_problem(api.get("/api/v1/me/"), 401)


def test_changing_ones_own_password_in_the_admin_keeps_only_that_session(api, other_api):
    staff_user = UserFactory(is_staff=True, is_superuser=True)
    other_session = browser_session(other_api, staff_user)
    api.authenticate(staff_user)
    admin = Client(headers={"X-Forwarded-Proto": "https"})
    admin.post("/admin/login/", {"username": staff_user.username, "password": PASSWORD})

    response = admin.post(
        "/admin/password_change/",
        {
            "old_password": PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )

    assert response.status_code == 302, response.content
    assert admin.get("/admin/").status_code == 200
    assert_problem(me_with_cookie(other_api, other_session), 401)
    assert_problem(api.get("/api/v1/me/"), 401)
