"""A synced batch is written in one statement per table: each answer gets its own row and id."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from reviews.models import Answer, Card
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    # Offline reviews are refused from before the account was made.
    user = UserFactory(date_joined=timezone.now() - timedelta(days=365))
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


def test_each_applied_review_names_the_answer_stored_for_it(api, learner):
    start = timezone.now() - timedelta(days=20)
    questions = QuestionFactory.create_batch(3)
    items = [
        offline(questions[i % 3], start + timedelta(days=i, microseconds=7), typed=typed)
        for i, typed in enumerate(["8e6", "4e6", "8e6", "8e6", "3", "8e6", "8e6"])
    ]

    results = api.post("/api/v1/reviews/sync/", {"reviews": items[::-1]}).json()["results"]

    stored = {a.pk: a for a in Answer.objects.all()}
    assert [stored[r["answer_id"]].client_id for r in results] == [
        uuid.UUID(i["client_id"]) for i in items[::-1]
    ]
    assert [stored[r["answer_id"]].created_at for r in results] == [
        start + timedelta(days=i, microseconds=7) for i in range(7)[::-1]
    ]
    assert [r["score"] for r in results] == [stored[r["answer_id"]].score for r in results]


def test_a_card_written_back_matches_its_last_review(api, learner):
    question = QuestionFactory()
    now = timezone.now()
    api.post("/api/v1/reviews/sync/", {"reviews": [offline(question, now - timedelta(days=9))]})

    body = api.post(
        "/api/v1/reviews/sync/",
        {"reviews": [offline(question, now - timedelta(days=3, microseconds=11))]},
    ).json()

    card = Card.objects.get()
    last = Answer.objects.get(pk=body["results"][0]["answer_id"])
    assert last.card_after["due"] == card.due.isoformat()
    assert last.card_after["stability"] == card.stability
    assert (card.reps, card.last_review) == (2, now - timedelta(days=3, microseconds=11))
    assert body["cards"][0]["id"] == card.pk
    assert last.card_before == Answer.objects.exclude(pk=last.pk).get().card_after
