"""Offline reviews: applied per card in time order, whatever order they arrive in, once."""

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.services import token_create
from engine.scheduling import CardState, Rating, SchedulerConfig, review, review_rng
from reviews.cards import card_action, card_state
from reviews.models import Answer, Card
from tests.factories import (
    AssignmentFactory,
    ClassroomFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    # Offline reviews are refused from before the account was made.
    user = UserFactory(date_joined=timezone.now() - timedelta(days=365))
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
    start = timezone.now() - timedelta(days=25)
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
    start = timezone.now() - timedelta(days=28)
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


def test_a_review_made_before_the_account_was_made_is_refused_by_name(api):
    learner = UserFactory(date_joined=timezone.now() - timedelta(days=5))
    api.authenticate(learner)
    question = QuestionFactory()
    now = timezone.now()
    items = [
        offline(question, now - timedelta(days=3650)),
        offline(question, now - timedelta(days=6)),
        offline(question, now - timedelta(days=4)),
    ]

    body = api.post("/api/v1/reviews/sync/", {"reviews": items}).json()

    assert [r["status"] for r in body["results"]] == ["invalid", "invalid", "applied"]
    assert [r["errors"] for r in body["results"][:2]] == [
        [
            {
                "field": "reviewed_at",
                "code": "before_account",
                "message": "This time is before your account was made.",
            }
        ]
    ] * 2
    assert Answer.objects.get().client_id == uuid.UUID(items[2]["client_id"])


def test_a_review_older_than_the_sync_window_is_refused_by_name(api, learner, settings):
    settings.OFFLINE_REVIEW_MAX_AGE = 7 * 24 * 3600
    question = QuestionFactory()
    now = timezone.now()
    items = [offline(question, now - timedelta(days=8)), offline(question, now - timedelta(days=6))]

    body = api.post("/api/v1/reviews/sync/", {"reviews": items}).json()

    assert [r["status"] for r in body["results"]] == ["invalid", "applied"]
    assert body["results"][0]["errors"] == [
        {
            "field": "reviewed_at",
            "code": "too_old",
            "message": "Reviews made more than 7 days ago can no longer be synced.",
        }
    ]


def test_the_sync_window_is_the_variant_tokens_lifetime_by_default():
    assert settings.OFFLINE_REVIEW_MAX_AGE == settings.VARIANT_TOKEN_MAX_AGE == 30 * 24 * 3600


def test_a_null_item_is_reported_on_its_own_and_the_rest_applied(api, learner):
    question = QuestionFactory()
    good = offline(question, timezone.now() - timedelta(hours=1))

    response = api.post("/api/v1/reviews/sync/", {"reviews": [None, good, None]})

    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["status"] for r in results] == ["invalid", "applied", "invalid"]
    assert results[0] == {
        "client_id": None,
        "status": "invalid",
        "errors": [
            {"field": None, "code": "not_an_object", "message": "Send each review as an object."}
        ],
    }
    assert Answer.objects.get().client_id == uuid.UUID(good["client_id"])


def test_each_applied_review_comes_back_with_its_feedback(api, learner):
    question = QuestionFactory()
    at = timezone.now() - timedelta(hours=2)
    items = [offline(question, at, typed="4e6"), offline(question, at + timedelta(hours=1))]

    results = api.post("/api/v1/reviews/sync/", {"reviews": items}).json()["results"]

    assert [r["feedback"] for r in results] == [
        {
            "status": "incorrect",
            "score": 0.0,
            "misconception": {"code": "one_matrix", "message": "That is one matrix."},
            "correct_answer": "8,000,000",
            "solution_steps": ["2 × 1,000 × 4,000 = 8,000,000"],
        },
        {
            "status": "correct",
            "score": 1.0,
            "misconception": None,
            "correct_answer": "8,000,000",
            "solution_steps": ["2 × 1,000 × 4,000 = 8,000,000"],
        },
    ]
    # The same feedback, and more, is there to read again for each answer stored.
    again = [api.get(f"/api/v1/answers/{r['answer_id']}/").json() for r in results]
    assert [{k: a[k] for k in results[0]["feedback"]} for a in again] == [
        r["feedback"] for r in results
    ]
    assert [a["answered_at"] for a in again] == [i["reviewed_at"] for i in items]


def test_a_review_synced_again_names_the_answer_stored_for_it(api, learner):
    item = offline(QuestionFactory(), timezone.now() - timedelta(hours=1))
    first = api.post("/api/v1/reviews/sync/", {"reviews": [item]}).json()["results"][0]

    again = api.post("/api/v1/reviews/sync/", {"reviews": [item]}).json()["results"][0]

    assert again == {
        "client_id": item["client_id"],
        "status": "duplicate",
        "answer_id": first["answer_id"],
    }


def test_a_late_sync_does_not_make_an_overdue_assignment_done(api, other_api, learner):
    question = QuestionFactory()
    classroom = ClassroomFactory(course=question.lesson.course)
    MembershipFactory(classroom=classroom, user=learner)
    due_at = timezone.now() - timedelta(days=1)
    AssignmentFactory(classroom=classroom, question_ids=[question.pk], due_at=due_at)
    # Right, and said to be made before the assignment was due, but received after it.
    item = offline(question, due_at - timedelta(hours=3))

    applied = api.post("/api/v1/reviews/sync/", {"reviews": [item]}).json()["results"][0]

    stored = Answer.objects.get()
    assert (applied["status"], applied["score"]) == ("applied", 1.0)
    assert stored.created_at == due_at - timedelta(hours=3)
    assert stored.received_at > due_at
    other_api.authenticate(classroom.teacher)
    progress = other_api.get(f"/api/v1/classrooms/{classroom.pk}/progress/").json()
    assert progress["learners"][0]["assignments_done"] == 0
    rows = other_api.get(f"/api/v1/classrooms/{classroom.pk}/assignments/").json()["results"]
    assert [learner["done"] for learner in rows[0]["learners"]] == [False]
