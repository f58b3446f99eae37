from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from knox.models import AuthToken

from accounts import services as account_services
from accounts.models import User
from config.throttles import SimpleRateThrottle
from course.models import LessonProgress, Report
from tests.conftest import assert_problem
from tests.factories import PASSWORD, LessonFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_register_returns_the_user_and_a_working_token(api):
    response = api.post(
        "/api/v1/auth/register/",
        {"username": "ada", "password": PASSWORD, "email": "ada@example.com"},
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["user"]["username"] == "ada"
    assert body["user"]["plan"] == "free"
    me = api.get("/api/v1/me/", headers={"Authorization": f"Token {body['token']}"})
    assert me.status_code == 200
    assert me.json()["email"] == "ada@example.com"
    assert User.objects.get(username="ada").password.startswith("argon2")


def test_register_refuses_a_taken_username_whatever_its_case(api):
    UserFactory(username="ada")

    response = api.post("/api/v1/auth/register/", {"username": "ADA", "password": PASSWORD})

    body = assert_problem(response, 400, field="username")
    assert "taken" in body["detail"]


@pytest.mark.parametrize(
    ("taken", "look_alike"),
    [
        ("alice", "\uff41\uff4c\uff49\uff43\uff45"),  # fullwidth letters
        ("alice", "\uff21\uff2c\uff29\uff23\uff25"),  # fullwidth capitals
        ("office", "o\ufb03ce"),  # the ffi ligature
        ("strasse", "Stra\u00dfe"),  # sharp s folds to ss
        ("x1", "\U0001d431\u00b9"),  # mathematical bold x, superscript one
    ],
)
def test_register_refuses_a_look_alike_of_a_taken_username(api, taken, look_alike):
    UserFactory(username=taken)

    response = api.post("/api/v1/auth/register/", {"username": look_alike, "password": PASSWORD})

    body = assert_problem(response, 400, field="username")
    assert [e["code"] for e in body["errors"]] == ["taken"]
    assert User.objects.count() == 1


def test_register_checks_the_username_as_it_will_be_stored(api):
    # U+3220 is one character of a word, and reads as "(" + U+4E00 + ")" once normalized.
    response = api.post("/api/v1/auth/register/", {"username": "\u3220", "password": PASSWORD})

    assert_problem(response, 400, field="username")
    assert not User.objects.exists()


def test_register_stores_the_normalized_username(api):
    response = api.post(
        "/api/v1/auth/register/", {"username": "\uff41\uff44\uff41", "password": PASSWORD}
    )

    assert response.status_code == 201, response.text
    assert response.json()["user"]["username"] == "ada"


def test_login_with_a_look_alike_of_the_username_signs_in_that_account(api):
    user = UserFactory(username="alice")

    response = api.post(
        "/api/v1/auth/login/",
        {"username": "\uff21\uff4c\uff49\uff43\uff45", "password": PASSWORD},
    )

    assert response.status_code == 200, response.text
    assert response.json()["user"]["id"] == user.pk


def test_look_alike_spellings_of_a_username_share_its_failed_sign_in_count(api, settings):
    settings.AXES_FAILURE_LIMIT = 4
    UserFactory(username="alice")
    spellings = ["alice", "ALICE", "\uff41\uff4c\uff49\uff43\uff45", "Alic\uff45"]
    attempts = [
        api.post("/api/v1/auth/login/", {"username": name, "password": "wrong"})
        for name in spellings
    ]

    # Counted apart, each spelling would have one failure of four: together they lock.
    assert [r.status_code for r in attempts[:3]] == [400] * 3
    assert_problem(attempts[3], 429)


def test_a_name_taken_between_the_check_and_the_write_is_refused_as_taken(monkeypatch):
    UserFactory(username="bob")
    # As if another sign-up had committed "bob" after this one checked it.
    monkeypatch.setattr(User, "validate_unique", lambda self, exclude=None: None)

    with pytest.raises(ValidationError) as refused:
        account_services.user_register(username="bob", password=PASSWORD)

    assert refused.value.error_dict["username"][0].code == "taken"
    assert User.objects.count() == 1


def test_register_runs_the_password_validators(api):
    response = api.post("/api/v1/auth/register/", {"username": "ada", "password": "12345678"})

    body = assert_problem(response, 400, field="password")
    assert any("common" in e["message"] or "numeric" in e["message"] for e in body["errors"])
    assert not User.objects.filter(username="ada").exists()


def test_login_gives_a_new_expiring_token_per_device(api):
    user = UserFactory()

    first = api.post("/api/v1/auth/login/", {"username": user.username, "password": PASSWORD})
    second = api.post("/api/v1/auth/login/", {"username": user.username, "password": PASSWORD})

    assert first.status_code == 200, first.text
    assert first.json()["token"] != second.json()["token"]
    assert first.json()["expiry"] is not None
    assert first.json()["user"]["id"] == user.pk
    assert AuthToken.objects.filter(user=user).count() == 2


def test_login_with_a_wrong_password_names_the_problem(api):
    user = UserFactory()

    response = api.post("/api/v1/auth/login/", {"username": user.username, "password": "nope"})

    body = assert_problem(response, 400, field="password")
    assert body["type"].endswith("/problems/invalid-credentials/")


def test_login_attempts_are_throttled_with_problem_details(api, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "login", "10/min")
    attempts = [
        api.post("/api/v1/auth/login/", {"username": f"learner{n}", "password": "wrong"})
        for n in range(11)
    ]

    assert [r.status_code for r in attempts[:10]] == [400] * 10
    body = assert_problem(attempts[10], 429)
    assert int(attempts[10].headers["Retry-After"]) > 0
    assert "Try again in" in body["detail"]


def test_logout_revokes_only_this_devices_token(api, other_api):
    user = UserFactory()
    api.authenticate(user)
    other_api.authenticate(user)

    assert api.post("/api/v1/auth/logout/").status_code == 204

    assert_problem(api.get("/api/v1/me/"), 401)
    assert other_api.get("/api/v1/me/").status_code == 200


def test_logout_all_revokes_every_token(api, other_api):
    user = UserFactory()
    api.authenticate(user)
    other_api.authenticate(user)

    assert api.post("/api/v1/auth/logout-all/").status_code == 204

    assert_problem(other_api.get("/api/v1/me/"), 401)
    assert AuthToken.objects.filter(user=user).count() == 0


def test_an_expired_token_is_refused(api):
    user = UserFactory()
    api.authenticate(user)
    AuthToken.objects.filter(user=user).update(expiry=timezone.now() - timedelta(seconds=1))

    response = api.get("/api/v1/me/")

    assert_problem(response, 401)
    assert response.headers["WWW-Authenticate"] == "Token"


def test_me_patch_changes_settings_but_never_the_plan(api):
    user = UserFactory()
    api.authenticate(user)

    response = api.patch(
        "/api/v1/me/",
        {"timezone": "Asia/Tokyo", "desired_retention": 0.85, "plan": "pro", "reminder_hour": 7},
    )

    assert response.status_code == 200, response.text
    assert response.json()["plan"] == "free"
    user.refresh_from_db()
    assert (user.timezone, user.desired_retention, user.reminder_hour) == ("Asia/Tokyo", 0.85, 7)
    assert user.plan == "free"


def test_me_shows_the_retention_the_scheduler_aims_at_and_a_client_cannot_set_it(api):
    user = UserFactory(desired_retention=0.85)
    type(user).objects.filter(pk=user.pk).update(retention_raise=0.0123)
    api.authenticate(user)

    assert api.get("/api/v1/me/").json()["scheduled_retention"] == 0.8623

    response = api.patch("/api/v1/me/", {"scheduled_retention": 0.99, "desired_retention": 0.9})

    assert response.status_code == 200, response.text
    assert response.json()["scheduled_retention"] == 0.9123
    user.refresh_from_db()
    assert (user.desired_retention, user.retention_raise) == (0.9, 0.0123)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("desired_retention", 1.5),
        ("desired_retention", "high"),
        ("timezone", "Mars/Olympus"),
        ("new_cards_per_day", -1),
        ("reviews_per_day", 10**9),
        ("day_starts_at_hour", 24),
        ("reminder_hour", 99),
        ("email_reminders", "sometimes"),
        ("email", "not-an-address"),
    ],
)
def test_me_patch_refuses_out_of_bounds_settings_and_changes_nothing(api, field, value):
    user = UserFactory()
    api.authenticate(user)
    before = api.get("/api/v1/me/").json()

    valid_change = (
        {"email_reminders": False} if field != "email_reminders" else {"reminder_hour": 5}
    )

    response = api.patch("/api/v1/me/", {field: value, **valid_change})

    assert_problem(response, 400, field=field)
    assert api.get("/api/v1/me/").json() == before


def test_export_holds_the_profile_progress_and_reports(api):
    user = UserFactory()
    lesson = LessonFactory()
    LessonProgress.objects.create(user=user, lesson=lesson, completed_at=timezone.now())
    Report.objects.create(user=user, lesson=lesson, message="Typo in the second paragraph.")
    api.authenticate(user)

    body = api.get("/api/v1/me/export/").json()

    assert body["profile"]["username"] == user.username
    assert body["profile"]["settings"]["timezone"] == "UTC"
    assert body["lesson_progress"][0]["lesson"] == lesson.slug
    assert body["reports"][0]["message"] == "Typo in the second paragraph."
    assert len(body["tokens"]) == 1
    assert "token_key" not in str(body)
    assert "digest" not in str(body)


def test_delete_needs_the_password_and_then_removes_everything(api):
    user = UserFactory()
    LessonProgress.objects.create(user=user, lesson=LessonFactory())
    api.authenticate(user)

    wrong = api.delete("/api/v1/me/", {"password": "nope"})
    assert_problem(wrong, 400, field="password")
    assert User.objects.filter(pk=user.pk).exists()

    right = api.delete("/api/v1/me/", {"password": PASSWORD})
    assert right.status_code == 204
    assert not User.objects.filter(pk=user.pk).exists()
    assert not LessonProgress.objects.filter(user_id=user.pk).exists()
    assert not AuthToken.objects.filter(user_id=user.pk).exists()


def test_private_endpoints_need_authentication(api):
    for path in ("/api/v1/me/", "/api/v1/me/export/"):
        assert_problem(api.get(path), 401)
