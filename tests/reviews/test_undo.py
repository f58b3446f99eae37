"""Undo takes back the review the server received last, whatever time its device gave it."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from reviews.models import Answer, Card
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SCHEDULE = ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses")


@pytest.fixture
def learner(api):
    user = UserFactory(date_joined=timezone.now() - timedelta(days=30))
    api.authenticate(user)
    return user


def offline(question, at, typed="8e6"):
    return {
        "client_id": str(uuid.uuid4()),
        "question": question.pk,
        "reviewed_at": at.isoformat(),
        "response": typed,
        "duration_ms": 20_000,
    }


def sync(api, *items):
    response = api.post("/api/v1/reviews/sync/", {"reviews": list(items)})
    assert {r["status"] for r in response.json()["results"]} == {"applied"}, response.text
    return response.json()["results"]


def test_an_offline_review_synced_after_an_online_answer_is_the_one_undone(api, learner):
    online, offline_question = QuestionFactory(), QuestionFactory()
    answered = api.post(f"/api/v1/questions/{online.pk}/answers/", {"response": "8e6"}).json()
    sync(api, offline(offline_question, timezone.now() - timedelta(hours=2)))

    undone = api.post("/api/v1/reviews/undo/").json()

    assert undone == {"question": offline_question.pk, "card": None}
    assert list(Answer.objects.values_list("pk", flat=True)) == [answered["answer_id"]]
    assert list(Card.objects.values_list("question_id", flat=True)) == [online.pk]


def test_undoing_a_late_review_replays_its_card_without_it(api, learner):
    question = QuestionFactory()
    now = timezone.now()
    sync(
        api, offline(question, now - timedelta(days=5)), offline(question, now - timedelta(days=3))
    )
    without_it = Card.objects.values(*SCHEDULE).get()
    log_without_it = list(Answer.objects.order_by("created_at").values("card_before", "card_after"))
    late = sync(api, offline(question, now - timedelta(days=4), typed="4e6"))[0]
    assert Card.objects.values(*SCHEDULE).get() != without_it  # the late lapse was slotted in

    undone = api.post("/api/v1/reviews/undo/").json()

    assert Card.objects.values(*SCHEDULE).get() == without_it
    assert undone["card"]["reps"] == 2
    assert not Answer.objects.filter(pk=late["answer_id"]).exists()
    log = Answer.objects.order_by("created_at")
    assert [a.created_at for a in log] == [now - timedelta(days=5), now - timedelta(days=3)]
    assert list(log.values("card_before", "card_after")) == log_without_it
