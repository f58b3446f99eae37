"""Offline reviews: applied per card in time order, whatever order they arrive in, once."""

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.services import token_create
from engine.scheduling import CardState, Rating, SchedulerConfig, review, review_rng
from reviews.cards import card_action, card_state
from reviews.models import Answer, Card
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


def offline(question, at, typed="8e6", **extra):
    return {
        "client_id": str(uuid.uuid4()),
        "question": question.pk,
        "reviewed_at": at.isoformat().replace("+00:00", "Z"),
        "response": typed,
        "duration_ms": 20_000,
        **extra,
    }


def history():
    start = timezone.now() - timedelta(days=40)
    first, second = QuestionFactory(), QuestionFactory()
    items = [
        offline(first, start),
        offline(first, start + timedelta(days=1)),
        offline(first, start + timedelta(days=4), typed="4e6"),
        offline(first, start + timedelta(days=5)),
        offline(second, start + timedelta(hours=3)),
        offline(second, start + timedelta(days=9)),
    ]
    return items


def card_states():
    return sorted(
        Card.objects.values_list(
            "question_id", "state", "stability", "difficulty", "due", "reps", "lapses"
        )
    )


def test_a_shuffled_batch_gives_the_same_cards_as_the_batch_in_order(api, other_api, learner):
    items = history()
    shuffled = [dict(item, client_id=str(uuid.uuid4())) for item in items]
    random.Random(4).shuffle(shuffled)

    in_order = api.post("/api/v1/reviews/sync/", {"reviews": items})
    assert in_order.status_code == 200, in_order.text
    ordered_cards = card_states()
    Card.objects.all().delete()
    Answer.objects.all().delete()
    api.post("/api/v1/reviews/sync/", {"reviews": shuffled})

    assert card_states() == ordered_cards
    assert ordered_cards[0][-1] == 1  # the wrong answer on day four was a lapse
    assert not Answer.objects.filter(card__isnull=True).exists()


def test_sending_a_batch_again_changes_nothing(api, learner):
    items = history()
    api.post("/api/v1/reviews/sync/", {"reviews": items})
    before = (card_states(), Answer.objects.count())

    again = api.post("/api/v1/reviews/sync/", {"reviews": items}).json()

    assert {r["status"] for r in again["results"]} == {"duplicate"}
    assert (card_states(), Answer.objects.count()) == before


def test_a_late_review_is_slotted_into_the_history(api, learner):
    items = history()
    late = items.pop(1)
    api.post("/api/v1/reviews/sync/", {"reviews": items})
    api.post("/api/v1/reviews/sync/", {"reviews": [late]})
    slotted = card_states()
    Card.objects.all().delete()
    Answer.objects.all().delete()

    api.post(
        "/api/v1/reviews/sync/",
        {"reviews": [dict(i, client_id=str(uuid.uuid4())) for i in [late, *items]]},
    )

    assert card_states() == slotted
    first = Answer.objects.filter(card__isnull=False).order_by("created_at")
    states = list(first.values_list("card_before", "card_after"))
    assert all(b is not None and a is not None for b, a in states)


def test_bad_items_are_named_and_the_good_ones_applied(api, learner):
    question = QuestionFactory()
    now = timezone.now()
    good = offline(question, now - timedelta(hours=1))
    items = [
        good,
        offline(question, now + timedelta(days=2)),
        offline(question, now - timedelta(hours=2), typed="eight million"),
        {**offline(question, now), "client_id": "not-a-uuid"},
        offline(QuestionFactory.build(pk=999999), now - timedelta(hours=3)),
        {**offline(question, now), "reviewed_at": "2026-01-01T10:00:00"},
        "not an object",
    ]

    body = api.post("/api/v1/reviews/sync/", {"reviews": items})

    assert body.status_code == 200, body.text
    results = body.json()["results"]
    assert [r["status"] for r in results] == ["applied"] + ["invalid"] * 6
    codes = [r["errors"][0]["code"] for r in results[1:5]]
    assert codes == ["in_future", "unreadable_number", "invalid", "not_found"]
    assert results[5]["errors"][0]["field"] == "reviewed_at"
    assert Answer.objects.get().client_id == uuid.UUID(good["client_id"])


def test_a_batch_over_a_thousand_is_refused_whole(api, learner):
    question = QuestionFactory()
    items = [offline(question, datetime(2026, 1, 1, tzinfo=UTC))] * 1001

    response = api.post("/api/v1/reviews/sync/", {"reviews": items})

    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "reviews"
    assert Answer.objects.count() == 0


def test_a_sync_does_not_spend_queries_per_review(client, learner):
    _, key = token_create(user=learner)
    counts = []
    for size in (10, 200):
        items = [
            offline(question, timezone.now() - timedelta(hours=1))
            for question in QuestionFactory.create_batch(size)
        ]
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                "/api/v1/reviews/sync/",
                {"reviews": items},
                content_type="application/json",
                headers={"Authorization": f"Token {key}", "X-Forwarded-Proto": "https"},
            )
        assert response.status_code == 200, response.content
        assert {r["status"] for r in response.json()["results"]} == {"applied"}
        counts.append(len(queries))

    # Bulk writes may split into batches (SQLite takes at most 999 parameters a statement);
    # a query per review would add hundreds.
    assert counts[1] - counts[0] <= 10, counts


def test_after_a_forget_a_late_review_replays_only_the_new_segment(api, learner):
    start = timezone.now() - timedelta(days=40)
    question = QuestionFactory()
    old = [offline(question, start + timedelta(days=d)) for d in (0, 1, 4)]
    api.post("/api/v1/reviews/sync/", {"reviews": old})
    old_log = sorted(Answer.objects.values_list("pk", "card_before", "card_after"))
    card = Card.objects.get()
    reset = start + timedelta(days=10)
    card_action(card=card, action="forget", now=reset)
    after = [start + timedelta(days=d) for d in (11, 12.5, 14)]
    api.post(
        "/api/v1/reviews/sync/",
        {"reviews": [offline(question, after[0]), offline(question, after[2], typed="4e6")]},
    )

    late = api.post("/api/v1/reviews/sync/", {"reviews": [offline(question, after[1])]}).json()

    assert [r["status"] for r in late["results"]] == ["applied"]
    # What the new segment alone gives: from new at the reset, three reviews in time order.
    state = CardState.new(reset)
    config = SchedulerConfig(desired_retention=learner.desired_retention)
    for at, rating in zip(after, (Rating.GOOD, Rating.GOOD, Rating.AGAIN), strict=True):
        rng = review_rng(card.seed, state.reps)
        state = review(state, rating, now=at, config=config, rng=rng).state
    card.refresh_from_db()
    assert card_state(card) == state
    assert (card.reps, card.reset_at) == (3, reset)
    segment = Answer.objects.filter(created_at__gte=reset).order_by("created_at")
    assert segment[0].card_before == CardState.new(reset).to_dict()
    assert [a.card_after["reps"] for a in segment] == [1, 2, 3]
    # The log before the reset is kept as it was.
    assert sorted(Answer.objects.filter(created_at__lt=reset).values_list(
        "pk", "card_before", "card_after"
    )) == old_log  # fmt: skip


def test_a_review_made_before_the_card_was_forgotten_is_refused(api, learner):
    start = timezone.now() - timedelta(days=20)
    question = QuestionFactory()
    api.post("/api/v1/reviews/sync/", {"reviews": [offline(question, start)]})
    card = Card.objects.get()
    card_action(card=card, action="forget", now=start + timedelta(days=5))
    stale = offline(question, start + timedelta(days=2))
    fresh = offline(question, start + timedelta(days=6))

    body = api.post("/api/v1/reviews/sync/", {"reviews": [stale, fresh]}).json()

    assert [r["status"] for r in body["results"]] == ["invalid", "applied"]
    assert body["results"][0]["errors"][0]["code"] == "before_forget"
    assert not Answer.objects.filter(client_id=stale["client_id"]).exists()
    card.refresh_from_db()
    assert (card.state, card.reps, card.last_review) == ("learning", 1, start + timedelta(days=6))
