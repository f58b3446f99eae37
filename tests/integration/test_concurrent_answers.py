"""Two requests with one idempotency key at the same moment store one answer.

Run against PostgreSQL in CI (the advisory lock path); on SQLite, writers are serialized.
"""

import itertools
import json
import threading
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from reviews.due_slots import counted_from_cards
from reviews.models import Answer, Card, DueSlot, IdempotencyRecord
from tests.conftest import Api
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_concurrent_requests_with_one_key_store_one_answer(live_server):
    user = UserFactory()
    question = QuestionFactory()
    clients = [Api(live_server.url) for _ in range(4)]
    for client in clients:
        client.authenticate(user)
    start = threading.Barrier(len(clients))
    responses = []

    def send(client: Api) -> None:
        start.wait()
        responses.append(
            client.post(
                f"/api/v1/questions/{question.pk}/answers/",
                {"response": "8e6"},
                headers={"Idempotency-Key": "same-moment"},
            )
        )

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    statuses = sorted(r.status_code for r in responses)
    assert len(statuses) == len(clients)
    assert set(statuses) <= {201, 409}, [r.text for r in responses]
    assert 201 in statuses
    bodies = {json.dumps(r.json(), sort_keys=True) for r in responses if r.status_code == 201}
    assert len(bodies) == 1
    assert Answer.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1


def test_two_answers_to_one_card_at_once_are_applied_one_after_the_other(live_server):
    user = UserFactory()
    question = QuestionFactory()
    first = Api(live_server.url)
    first.authenticate(user)
    first.post(f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"})
    clients = [Api(live_server.url) for _ in range(2)]
    for client in clients:
        client.authenticate(user)
    start = threading.Barrier(2)
    statuses = []

    def send(client: Api) -> None:
        start.wait()
        response = client.post(f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"})
        statuses.append(response.status_code)

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert statuses == [201, 201]
    reviews = list(Answer.objects.filter(card__isnull=False).order_by("pk"))
    assert len(reviews) == 3
    for earlier, later in itertools.pairwise(reviews):
        assert later.card_before == earlier.card_after
    card = reviews[-1].card
    card.refresh_from_db()
    assert card.reps == 3
    assert reviews[-1].card_after["reps"] == 3


def test_one_sync_sent_twice_at_once_applies_each_review_once(live_server):
    user = UserFactory(date_joined=timezone.now() - timedelta(days=1))
    questions = QuestionFactory.create_batch(3)
    start_at = timezone.now() - timedelta(hours=3)
    reviews = [
        {
            "client_id": str(uuid.uuid4()),
            "question": question.pk,
            "reviewed_at": (start_at + timedelta(minutes=10 * n)).isoformat(),
            "response": "8e6",
        }
        for n, question in enumerate(questions * 2)
    ]
    clients = [Api(live_server.url) for _ in range(2)]
    for client in clients:
        client.authenticate(user)
    start = threading.Barrier(len(clients))
    bodies = []

    def send(client: Api) -> None:
        start.wait()
        response = client.post("/api/v1/reviews/sync/", {"reviews": reviews})
        bodies.append((response.status_code, response.json()))

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert [status for status, _ in bodies] == [200, 200], bodies
    statuses = sorted(tuple(sorted(r["status"] for r in body["results"])) for _, body in bodies)
    assert statuses == [("applied",) * 6, ("duplicate",) * 6]
    assert Answer.objects.count() == 6
    for card in Card.objects.filter(user=user):
        assert card.reps == 2


def test_one_learners_answers_at_once_on_many_devices_keep_the_due_slots_in_step(live_server):
    """Every answer moves a card between due slots; answers of one learner that cross each
    other's slots wait their turn (on PostgreSQL, the learner's lock in the trigger) and all
    land, with the slots still what the cards give."""
    user = UserFactory()
    questions = [QuestionFactory() for _ in range(6)]
    clients = [Api(live_server.url) for _ in range(6)]
    for client in clients:
        client.authenticate(user)
    start = threading.Barrier(len(clients))
    statuses = []

    def send(n: int, client: Api) -> None:
        start.wait()
        # Each device answers every question, starting at its own: cards are written by
        # several requests at once, in orders that cross.
        for question in questions[n:] + questions[:n]:
            typed = "8e6" if n % 2 else "1"
            response = client.post(f"/api/v1/questions/{question.pk}/answers/", {"response": typed})
            statuses.append(response.status_code)

    threads = [threading.Thread(target=send, args=(n, c)) for n, c in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert statuses == [201] * len(clients) * len(questions)
    kept = {
        (u, slot): n
        for u, slot, n in DueSlot.objects.exclude(cards=0).values_list("user_id", "slot", "cards")
    }
    assert kept == counted_from_cards(user_ids=[user.pk])
    assert sum(kept.values()) == len(questions)
