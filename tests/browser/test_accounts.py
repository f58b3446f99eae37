"""The account pages in a browser, with JavaScript on and off: signing up, out and in, a
forgotten password through the e-mailed link, the settings (the time zone above all), devices
and notifications; every page passes `check_page` signed in and out."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from knox.models import AuthToken

from accounts import services
from accounts.models import Notification, User
from tests.browser.conftest import check_page, screenshot
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

NEW = "a brand new passphrase"
MODES = pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])


def signed_in(browse, user) -> None:
    """The browser carries a session of `user`, as if it had signed in."""
    client = Client()
    client.force_login(user)
    browse.page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": browse.site}]
    )


def heading(browse) -> str:
    return browse.page.get_by_role("heading", level=1).inner_text()


@MODES
def test_a_visitor_signs_up_signs_out_and_signs_in_again(open_browser, javascript):
    browse = open_browser(javascript=javascript)

    browse.go("/signup/")
    assert heading(browse) == "Create an account"
    check_page(browse)
    browse.page.get_by_label("Username").fill("ada")
    browse.page.get_by_label("Password").fill("123")
    browse.page.get_by_role("button", name="Create account").click()
    assert browse.page.locator(".error-summary").is_visible()
    if javascript:
        screenshot(browse.page, "signup-errors")
    check_page(browse)
    browse.page.get_by_label("Password").fill(PASSWORD)
    browse.page.get_by_role("button", name="Create account").click()

    assert heading(browse) == "Today"
    assert "Welcome to Residual, ada." in browse.page.locator(".messages").inner_text()
    assert User.objects.filter(username="ada").exists()

    browse.page.get_by_role("button", name="Sign out").click()
    assert browse.page.get_by_role("link", name="Sign in").count() >= 1

    browse.go("/login/")
    check_page(browse)
    browse.page.get_by_label("Username").fill("ADA")
    browse.page.get_by_label("Password").fill(PASSWORD)
    browse.page.get_by_role("button", name="Sign in").click()
    assert heading(browse) == "Today"


def test_the_sign_up_page_as_a_visitor_sees_it(open_browser):
    browse = open_browser()

    browse.go("/signup/")

    screenshot(browse.page, "signup")
    check_page(browse)


@MODES
def test_a_learner_changes_the_time_zone_and_sees_it_saved(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    user = UserFactory(retention_raise=0.0183)  # a check found reviews no schedule can place
    signed_in(browse, user)

    browse.go("/settings/")
    retention = browse.page.get_by_label("Desired retention")
    assert retention.input_value() == "0.9"
    assert (
        "your reviews are aimed a little higher, at 0.92"
        in browse.page.locator(f"#{retention.get_attribute('aria-describedby')}").inner_text()
    )
    zone = browse.page.get_by_label("Time zone")
    if javascript:  # the browser's own zone is offered for a learner still on UTC
        assert zone.input_value() == "Europe/Paris"
        assert (
            "Your browser says Europe/Paris." in browse.page.locator("#timezone-guess").inner_text()
        )
    else:
        assert zone.input_value() == "UTC"
    check_page(browse)
    if javascript:
        screenshot(browse.page, "settings")
    zone.select_option("Asia/Tokyo")
    browse.page.get_by_label("Reminder time").select_option("08:00")
    browse.page.get_by_role("button", name="Save settings").click()

    assert "Your settings are saved." in browse.page.locator(".messages").inner_text()
    assert browse.page.get_by_label("Time zone").input_value() == "Asia/Tokyo"
    user.refresh_from_db()
    assert user.timezone == "Asia/Tokyo"
    assert user.reminder_hour == 8


@MODES
def test_a_bad_setting_is_shown_in_the_error_summary(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    signed_in(browse, UserFactory())

    browse.go("/settings/")
    browse.page.get_by_label("Desired retention").fill("0.5")
    browse.page.get_by_role("button", name="Save settings").click()

    summary = browse.page.locator(".error-summary")
    assert "Choose a desired retention from 0.70 to 0.99." in summary.inner_text()
    summary.get_by_role("link").first.click()
    assert browse.page.url.endswith("#id_desired_retention")
    check_page(browse)


@MODES
def test_a_learner_revokes_a_device(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    user = UserFactory()
    services.token_create(user=user)
    kept, _ = services.token_create(user=user)
    signed_in(browse, user)

    browse.go("/settings/devices/")
    check_page(browse)
    assert browse.page.get_by_role("row").count() == 3  # the header and two devices
    browse.page.get_by_role("button", name=re.compile("^Revoke")).last.click()

    assert "That device is signed out." in browse.page.locator(".messages").inner_text()
    assert list(AuthToken.objects.filter(user=user)) == [kept]
    assert browse.page.get_by_role("row").count() == 2


@MODES
def test_a_learner_reads_and_marks_notifications(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    user = UserFactory()
    for n in range(3):
        services.notification_create(
            user_id=user.pk, kind="reminder", key=f"k{n}", title=f"Reviews due {n}", body="Hi."
        )
    signed_in(browse, user)

    browse.go("/")
    browse.page.get_by_role("link", name=re.compile("Notifications")).click()
    assert heading(browse) == "Notifications"
    assert "3 unread" in browse.page.locator(".bell .badge").text_content()
    check_page(browse)
    browse.page.get_by_role("button", name=re.compile(r"^Mark read\W+Reviews due 2$")).click()
    assert "2 unread" in browse.page.locator(".bell .badge").text_content()
    assert Notification.objects.filter(read_at__isnull=True).count() == 2
    browse.page.get_by_role("button", name="Mark all read").click()

    assert "2 notifications marked read." in browse.page.locator(".messages").inner_text()
    assert browse.page.locator(".bell .badge").count() == 0
    assert browse.page.get_by_role("button", name=re.compile("^Mark")).count() == 0
    check_page(browse)


@MODES
def test_a_forgotten_password_is_reset_through_the_e_mailed_link(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    user = UserFactory(email="ada@example.com")

    browse.go("/login/")
    browse.page.get_by_role("link", name="Forgotten your password?").click()
    assert heading(browse) == "Reset your password"
    check_page(browse)
    browse.page.get_by_label("E-mail").fill("ada@example.com")
    browse.page.get_by_role("button", name="Send the link").click()
    assert heading(browse) == "Check your e-mail"
    check_page(browse)

    (message,) = mail.outbox
    path = re.search(r"https?://[^/\s]+(/password-reset/\S+/)", message.body).group(1)
    browse.go(path)
    assert heading(browse) == "Choose a new password"
    check_page(browse)
    browse.page.get_by_label("New password", exact=True).fill(NEW)
    browse.page.get_by_label("New password again").fill(NEW)
    browse.page.get_by_role("button", name="Set the new password").click()
    assert heading(browse) == "Your password is changed"
    check_page(browse)

    browse.page.get_by_role("main").get_by_role("link", name="Sign in").click()
    browse.page.get_by_label("Username").fill(user.username)
    browse.page.get_by_label("Password").fill(NEW)
    browse.page.get_by_role("button", name="Sign in").click()
    assert heading(browse) == "Today"


@MODES
def test_every_other_account_page_passes_the_checks(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    signed_in(browse, UserFactory())

    for path, title in [
        ("/settings/password/", "Change your password"),
        ("/settings/export/", "Your data"),
        ("/settings/delete/", "Delete your account"),
        ("/notifications/", "Notifications"),
        ("/settings/devices/", "Devices"),
    ]:
        browse.go(path)
        assert heading(browse) == title
        check_page(browse)


def test_a_learner_downloads_their_data(open_browser):
    browse = open_browser()
    user = UserFactory()
    signed_in(browse, user)

    browse.go("/settings/export/")
    with browse.page.expect_download() as download:
        browse.page.get_by_role("button", name="Download my data").click()

    assert download.value.suggested_filename.startswith("residual-export-")
    assert user.username in download.value.path().read_text()


def test_a_locked_out_username_is_told_when_to_try_again(open_browser, settings):
    settings.AXES_FAILURE_LIMIT = 2
    browse = open_browser(javascript=False)
    user = UserFactory()

    browse.go("/login/")
    for n in range(2):
        browse.page.get_by_label("Username").fill(user.username)
        browse.page.get_by_label("Password").fill(f"guess {n}")
        browse.page.get_by_role("button", name="Sign in").click()

    assert "Too many failed sign-ins for this username" in (
        browse.page.locator(".error-summary").inner_text()
    )
    check_page(browse)
