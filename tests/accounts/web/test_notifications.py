"""The learner's notifications: newest first, a page at a time, marked read one by one or all
at once; another learner's are out of reach."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Notification
from accounts.selectors import unread_count
from tests.accounts.web.conftest import text_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def notify(user, n: int, **fields) -> list[Notification]:
    start = timezone.now() - timedelta(hours=n)
    return Notification.objects.bulk_create(
        Notification(
            user=user,
            kind="reminder",
            key=f"reminder-{i}",
            title=f"Reviews due {i}",
            body=f"You have {i} cards due.",
            created_at=start + timedelta(hours=i),
            **fields,
        )
        for i in range(n)
    )


def test_the_list_is_newest_first_with_the_unread_marked(web, learner):
    notify(learner, 3)
    Notification.objects.filter(key="reminder-0").update(read_at=timezone.now())

    response = web.get("/notifications/")
    text = text_of(response)

    assert response.status_code == 200
    assert text.index("Reviews due 2") < text.index("Reviews due 1") < text.index("Reviews due 0")
    assert text.count("New Reviews due") == 2
    assert text.count("Mark read") == 2
    assert "Mark all read" in text
    assert "2 unread" in text  # the bell


def test_the_list_comes_a_page_at_a_time(web, learner):
    notify(learner, 25)

    first = text_of(web.get("/notifications/"))
    second = text_of(web.get("/notifications/?page=2"))
    nonsense = web.get("/notifications/?page=abc\x00")

    assert "Reviews due 24" in first
    assert "Reviews due 4 " not in first
    assert "Page 1 of 2" in first
    assert "Reviews due 4 " in second
    assert "Reviews due 0 " in second
    assert nonsense.status_code == 200


def test_marking_one_read(web, learner):
    first, second = notify(learner, 2)

    response = web.post(f"/notifications/{first.pk}/read/", {"page": "1"})

    assert response.status_code == 303
    assert response["Location"] == "/notifications/"
    first.refresh_from_db(), second.refresh_from_db()
    assert first.read_at is not None
    assert second.read_at is None


def test_marking_all_read_returns_to_the_same_page(web, learner):
    notify(learner, 25)

    response = web.post("/notifications/read/", {"page": "2"})

    assert response.status_code == 303
    assert response["Location"] == "/notifications/?page=2"
    assert not Notification.objects.filter(read_at__isnull=True).exists()
    assert "25 notifications marked read." in text_of(web.get("/notifications/"))


def test_a_bad_page_to_return_to_is_ignored(web, learner):
    notify(learner, 1)

    response = web.post("/notifications/read/", {"page": "x\x00"})

    assert response["Location"] == "/notifications/"


def test_another_learners_notification_is_a_404(web, learner):
    (theirs,) = notify(UserFactory(), 1)

    response = web.post(f"/notifications/{theirs.pk}/read/")
    huge = web.post(f"/notifications/{2**70}/read/")

    assert response.status_code == 404
    assert huge.status_code == 404
    theirs.refresh_from_db()
    assert theirs.read_at is None


def test_marking_all_read_leaves_other_learners_alone(web, learner):
    notify(learner, 1)
    (theirs,) = notify(UserFactory(), 1)

    web.post("/notifications/read/")

    theirs.refresh_from_db()
    assert theirs.read_at is None


def test_marking_read_is_a_post(web, learner):
    (mine,) = notify(learner, 1)

    assert web.get("/notifications/read/").status_code == 405
    assert web.get(f"/notifications/{mine.pk}/read/").status_code == 405


def test_with_none_the_page_says_what_will_come(web, learner):
    response = web.get("/notifications/")

    assert "Nothing yet." in text_of(response)
    assert "Mark all read" not in text_of(response)


def test_the_list_costs_the_same_queries_for_few_and_many(web):
    def queries_for(rows: int) -> int:
        user = UserFactory()
        notify(user, rows)
        web.force_login(user)
        with CaptureQueriesContext(connection) as queries:
            assert web.get("/notifications/").status_code == 200
        return len(queries)

    assert queries_for(2) == queries_for(20)


def test_signing_in_is_needed(web):
    assert web.get("/notifications/")["Location"] == "/login/?next=/notifications/"


def test_the_bell_counts_only_this_learners_unread_notifications(web, learner):
    notify(learner, 5)
    read = Notification.objects.filter(user=learner, key__in=["reminder-0", "reminder-4"])
    read.update(read_at=timezone.now())
    notify(UserFactory(), 4)
    assert unread_count(user_id=learner.pk) == 3
    assert "3 unread" in text_of(web.get("/"))
    Notification.objects.filter(user=learner).update(read_at=timezone.now())
    assert "unread" not in text_of(web.get("/"))
