"""GET /api/v1/notifications/ and marking them read; beat's schedules, installed by migrating."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from accounts.models import Notification
from config import schedules
from tests.conftest import assert_problem
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def notify(user, key, *, minutes_ago=0, kind=Notification.Kind.REMINDER, **fields):
    return Notification.objects.create(
        user=user, kind=kind, key=key, title=f"About {key}", body="Body.",
        created_at=timezone.now() - timedelta(minutes=minutes_ago), **fields,
    )  # fmt: skip


def test_the_callers_notifications_newest_first_and_nobody_elses(api):
    ada, bob = UserFactory(), UserFactory()
    old = notify(ada, "reminder:2026-11-29", minutes_ago=60 * 24)
    new = notify(ada, "leech:1:8", kind=Notification.Kind.LEECH, data={"card": 1})
    notify(bob, "reminder:2026-11-30")
    api.authenticate(ada)

    body = api.get("/api/v1/notifications/").json()

    assert body["count"] == 2
    assert [n["id"] for n in body["results"]] == [new.pk, old.pk]
    first = body["results"][0]
    assert first == {
        "id": new.pk,
        "kind": "leech",
        "title": "About leech:1:8",
        "body": "Body.",
        "data": {"card": 1},
        "created_at": first["created_at"],
        "read_at": None,
    }


def test_filters_by_kind_and_read_and_refuses_bad_values(api):
    ada = UserFactory()
    notify(ada, "a")
    notify(ada, "b", kind=Notification.Kind.LEECH, read_at=timezone.now())
    api.authenticate(ada)

    assert api.get("/api/v1/notifications/?unread=true").json()["count"] == 1
    assert api.get("/api/v1/notifications/?unread=false").json()["count"] == 1
    assert api.get("/api/v1/notifications/?kind=leech").json()["count"] == 1
    assert_problem(api.get("/api/v1/notifications/?unread=maybe"), 400, "unread")
    assert_problem(api.get("/api/v1/notifications/?kind=spam"), 400, "kind")


def test_marking_read_an_id_past_64_bits_is_a_400_naming_it(api):
    api.authenticate(UserFactory())

    assert_problem(api.post("/api/v1/notifications/read/", {"ids": [2**64]}), 400, "ids.0")


def test_marking_read_the_listed_ones_or_all(api):
    ada, bob = UserFactory(), UserFactory()
    one, two, three = (notify(ada, key) for key in ("one", "two", "three"))
    theirs = notify(bob, "theirs")
    api.authenticate(ada)

    response = api.post("/api/v1/notifications/read/", {"ids": [one.pk, theirs.pk]})
    assert response.json() == {"marked": 1}
    theirs.refresh_from_db()
    assert theirs.read_at is None  # someone else's: untouched
    assert api.post("/api/v1/notifications/read/", {}).json() == {"marked": 2}
    assert api.post("/api/v1/notifications/read/", {}).json() == {"marked": 0}
    assert not Notification.objects.filter(user=ada, read_at__isnull=True).exists()
    del two, three

    assert_problem(api.post("/api/v1/notifications/read/", {"ids": ["x"]}), 400, "ids.0")
    assert_problem(api.post("/api/v1/notifications/read/", {"ids": 5}), 400, "ids")


def test_anonymous_callers_get_401(api):
    assert_problem(api.get("/api/v1/notifications/"), 401)
    assert_problem(api.post("/api/v1/notifications/read/", {}), 401)


def test_the_export_holds_the_notifications(api):
    ada = UserFactory()
    notify(ada, "reminder:2026-11-30", email=True, emailed_at=timezone.now())
    api.authenticate(ada)

    exported = api.get("/api/v1/me/export/").json()["notifications"]

    assert [n["title"] for n in exported] == ["About reminder:2026-11-30"]
    assert exported[0]["emailed_at"] is not None


def test_migrating_installs_every_schedule_and_installing_again_keeps_staff_changes():
    PeriodicTask.objects.all().delete()
    executor = MigrationExecutor(connection)
    executor.migrate([("accounts", "0003_notifications")])  # back before the schedules
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # forward again, to the latest

    installed = dict(PeriodicTask.objects.values_list("name", "task"))
    assert installed == {schedule.name: schedule.task for schedule in schedules.SCHEDULES}
    reminders = PeriodicTask.objects.get(task="quizzes.reminders_sweep")
    assert (reminders.interval.every, reminders.interval.period) == (15, "minutes")

    reminders.enabled = False  # paused by staff in the admin
    reminders.save()
    PeriodicTask.objects.filter(task="quizzes.prune_expired").delete()
    call_command("install_schedules", verbosity=0)

    assert PeriodicTask.objects.count() == len(schedules.SCHEDULES)
    assert PeriodicTask.objects.get(task="quizzes.reminders_sweep").enabled is False
    assert PeriodicTask.objects.get(task="quizzes.prune_expired").crontab.hour == "4"
