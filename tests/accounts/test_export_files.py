"""The export streamed as it is read, and prepared in the background for a long history,
with a link that only its owner can use, and only for a day."""

import json
import time

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from accounts import export_files, exports, selectors, tasks
from accounts.models import Notification
from config import background
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path  # the storage follows the setting
    return tmp_path


@pytest.fixture
def learner(api):
    user = UserFactory(username="ada", email="ada@example.com")
    api.authenticate(user)
    for question in QuestionFactory.create_batch(3):
        assert api.post(f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"}).ok
    yield user
    cache.delete(f"export-preparing:{user.pk}")  # a preparation asked for and never run


@pytest.fixture
def queued(monkeypatch):
    """What requests send to the background, kept here instead of going to a worker (whose
    database is not this test's): each test runs the work itself."""
    sent = []
    monkeypatch.setattr(background, "send", lambda task, *args: sent.append((task.name, args)))
    return sent


def parsed(chunks):
    body = json.loads(b"".join(chunks))
    body.pop("exported_at")
    return body


def rendered(user):
    """The export gathered whole, as the API's renderer writes it."""
    return parsed([JSONRenderer().render(selectors.user_export(user=user))])


def test_the_streamed_document_is_the_export_in_pieces(learner, settings, monkeypatch):
    monkeypatch.setattr(exports, "_PIECE", 64)  # small pieces: many of them, each valid text
    pieces = list(export_files.chunks(learner, now=timezone.now()))

    assert len(pieces) > 5
    assert parsed(pieces) == rendered(learner)
    assert len(parsed(pieces)["answers"]) == 3


def test_the_api_streams_the_export(api, learner):
    response = api.get("/api/v1/me/export/", stream=True)

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
    assert "Content-Length" not in response.headers  # sent as it is written
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    assert len(response.json()["answers"]) == 3


def test_a_prepared_export_is_announced_and_downloaded_by_its_owner_only(
    api, other_api, learner, queued, mailoutbox
):
    asked = api.post("/api/v1/me/export/", {})
    assert asked.status_code == 202, asked.text
    assert asked.json()["status"] == "preparing"
    assert queued == [("accounts.export_prepare", (learner.pk,))]
    tasks.export_prepare(learner.pk)

    (note,) = Notification.objects.filter(user=learner, kind="export")
    link = note.data["download"]
    assert link in note.body
    assert note.emailed_at is not None
    assert mailoutbox[-1].to == ["ada@example.com"]
    assert link in mailoutbox[-1].body
    downloaded = api.get(link)
    assert downloaded.status_code == 200
    assert downloaded.headers["Content-Disposition"].startswith("attachment;")
    body, now = parsed([downloaded.content]), rendered(learner)
    # Written before the notification that announces it: the rest is the same.
    assert now.pop("notifications")[-1]["kind"] == "export"
    assert body.pop("notifications") == []
    assert body == now
    # Another learner, signed in, with the same link: nothing.
    other_api.authenticate(UserFactory())
    assert other_api.get(link).status_code == 404
    # A link altered by a character: nothing either.
    assert api.get(link[:-3] + ("a" if link[-3] != "a" else "b") + link[-2:]).status_code == 404
    # Not signed in: asked to sign in.
    assert Client().get(link, secure=True).status_code == 401


def test_asking_again_while_an_export_is_prepared_starts_nothing(learner):
    sent = []
    with transaction.atomic():
        first = export_files.request_preparation(learner, send=sent.append)
        second = export_files.request_preparation(learner, send=sent.append)

    assert (first, second) == (True, False)
    assert sent == [learner.pk]


def test_an_expired_link_is_gone_and_its_file_is_pruned(api, learner, settings, media):
    tasks.export_prepare(learner.pk)
    link = Notification.objects.get(user=learner, kind="export").data["download"]
    settings.EXPORT_LINK_SECONDS = 1
    time.sleep(2.1)

    response = api.get(link)

    assert response.status_code == 410
    assert response.json()["type"].endswith("/problems/export-expired/")
    assert export_files.expired_files_prune(now=timezone.now()) == 1
    assert list((media / "exports").iterdir()) == []


def test_the_web_page_prepares_a_long_history_in_the_background(learner, settings, queued):
    settings.EXPORT_IN_BACKGROUND_ANSWERS = 2  # three answers: a long history here
    web = Client(headers={"X-Forwarded-Proto": "https"})
    web.force_login(learner)

    page = web.get("/settings/export/")
    asked = web.post("/settings/export/", follow=True)

    assert "Prepare my data" in page.content.decode()
    assert asked.status_code == 200
    assert "being prepared" in asked.content.decode()
    assert queued == [("accounts.export_prepare", (learner.pk,))]
