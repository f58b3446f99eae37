"""The learner's settings page: the fields `PATCH /api/v1/me/` takes, checked with the same
limits, saved through the same service."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Notification
from tests.accounts.web.conftest import error_summary, text_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

VALID = {
    "email": "ada@example.com",
    "timezone": "Asia/Tokyo",
    "day_starts_at_hour": "5",
    "new_cards_per_day": "15",
    "reviews_per_day": "150",
    "desired_retention": "0.85",
    "reminder_hour": "8",
    "email_reminders": "no",
}


def test_signing_in_is_needed(web):
    response = web.get("/settings/")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/settings/"


def test_the_page_shows_each_setting_with_the_current_value_chosen(web):
    user = UserFactory(timezone="Europe/Berlin", reminder_hour=7, desired_retention=0.9)
    web.force_login(user)

    response = web.get("/settings/")
    page = response.content.decode()

    assert response.status_code == 200
    assert '<option value="Europe/Berlin" selected>Europe/Berlin</option>' in page
    assert '<option value="America/New_York">America/New York</option>' in page
    zones = re.findall(r'<option value="([A-Za-z]+/[^"]+)"', page)
    assert zones == sorted(zones)
    assert 'data-guess-timezone="timezone-guess"' in page
    assert 'id="timezone-guess"' in page
    assert '<option value="7" selected>07:00</option>' in page
    assert "you will remember about 9 in 10 cards when they come back" in text_of(response)
    assert 'value="0.9"' in page
    assert re.search(r'<input type="radio" name="email_reminders" value="yes"[^>]* checked', page)


def test_saving_changes_every_setting_through_the_service(web, learner):
    response = web.post("/settings/", VALID)

    assert response.status_code == 303
    assert response["Location"] == "/settings/"
    learner.refresh_from_db()
    assert learner.email == "ada@example.com"
    assert learner.timezone == "Asia/Tokyo"
    assert learner.day_starts_at_hour == 5
    assert learner.new_cards_per_day == 15
    assert learner.reviews_per_day == 150
    assert learner.desired_retention == 0.85
    assert learner.reminder_hour == 8
    assert learner.email_reminders is False
    after = web.get("/settings/")
    assert "Your settings are saved." in text_of(after)
    assert '<option value="Asia/Tokyo" selected>' in after.content.decode()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("timezone", "Mars/Olympus_Mons", "Select a valid choice."),
        ("timezone", "Europe/Berlin\x00", "Select a valid choice."),
        ("desired_retention", "0.5", "Choose a desired retention from 0.70 to 0.99."),
        ("desired_retention", "1", "Choose a desired retention from 0.70 to 0.99."),
        ("desired_retention", "nine tenths", "Give a number such as 0.90."),
        ("new_cards_per_day", "-1", "Choose from 0 to 500 new cards a day."),
        ("reviews_per_day", "10001", "Choose from 0 to 10,000 reviews a day."),
        ("reviews_per_day", "9" * 40, "Choose from 0 to 10,000 reviews a day."),
        ("day_starts_at_hour", "24", "Select a valid choice."),
        ("reminder_hour", "\x00", "Select a valid choice."),
        ("email", "not an address", "Enter a valid email address."),
        ("email", "a" * 250 + "@example.com", "at most 254 characters"),
        ("email_reminders", "maybe", "Select a valid choice."),
    ],
)
def test_a_bad_value_is_an_error_on_its_field_and_nothing_is_saved(
    web, learner, field, value, message
):
    response = web.post("/settings/", {**VALID, field: value})

    assert response.status_code == 200
    assert message in error_summary(response)
    assert f'href="#id_{field}' in response.content.decode()
    learner.refresh_from_db()
    assert learner.timezone == "UTC"


def test_the_settings_page_costs_the_same_queries_with_few_or_many_notifications(web):
    def queries_for(rows: int) -> int:
        user = UserFactory()
        Notification.objects.bulk_create(
            Notification(user=user, kind="reminder", key=f"k{n}", title="t", body="b")
            for n in range(rows)
        )
        web.force_login(user)
        with CaptureQueriesContext(connection) as queries:
            assert web.get("/settings/").status_code == 200
        return len(queries)

    assert queries_for(2) == queries_for(20)


def test_the_page_says_when_reviews_are_aimed_above_the_desired_retention(web):
    plain = UserFactory(desired_retention=0.9)
    web.force_login(plain)
    assert "aimed a little higher" not in text_of(web.get("/settings/"))

    raised = UserFactory(desired_retention=0.9)
    type(raised).objects.filter(pk=raised.pk).update(retention_raise=0.0183)
    web.force_login(raised)
    text = text_of(web.get("/settings/"))
    assert (
        "your reviews are aimed a little higher, at 0.92: a card you missed the first time "
        "comes back the next day already under 0.90, and the others make up for it." in text
    )
