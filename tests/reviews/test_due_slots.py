"""The due slots behind the forecast: counted by the database whatever writes a card (the API's
answers, undo, syncs, suspensions and resets, bulk updates, deletions), always what a count
from the cards gives, and summed into the learner's own days exactly."""

import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db.models import F
from django.utils import timezone

from reviews.due_slots import counted_from_cards, empty_slots_prune, scheduled_cards
from reviews.models import Card, DueSlot
from reviews.rollups import study_date_at
from reviews.stats import FORECAST_DAYS, learner_stats
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def kept():
    """The slots as the triggers keep them, empty ones left out."""
    return {
        (user_id, slot): cards
        for user_id, slot, cards in DueSlot.objects.exclude(cards=0).values_list(
            "user_id", "slot", "cards"
        )
    }


def counted():
    users = list(Card.objects.values_list("user_id", flat=True).distinct())
    return counted_from_cards(user_ids=users)


def assert_in_step():
    assert kept() == counted()
    assert not DueSlot.objects.filter(cards__lt=0).exists()


def test_every_way_a_card_is_written_keeps_its_slots_in_step(api):
    learner = UserFactory(date_joined=timezone.now() - timedelta(days=30))
    api.authenticate(learner)
    questions = [QuestionFactory() for _ in range(4)]

    for question in questions[:3]:  # first reviews: new cards, written scheduled
        response = api.post(f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"})
        assert response.status_code == 201, response.text
    assert sum(kept().values()) == 3
    assert_in_step()

    api.post(f"/api/v1/questions/{questions[0].pk}/answers/", {"response": "1"})  # a lapse
    assert_in_step()
    assert api.post("/api/v1/reviews/undo/", {}).status_code == 200
    assert_in_step()

    at = timezone.now() - timedelta(days=2)
    items = [
        {
            "client_id": str(uuid.uuid4()),
            "question": question.pk,
            "reviewed_at": at.isoformat(),
            "response": "8e6",
            "duration_ms": 9000,
        }
        for question in questions  # one late for its card, one a first review
    ]
    synced = api.post("/api/v1/reviews/sync/", {"reviews": items})
    assert {r["status"] for r in synced.json()["results"]} == {"applied"}, synced.text
    assert sum(kept().values()) == 4
    assert_in_step()

    card = Card.objects.filter(user=learner).first()
    assert api.post(f"/api/v1/cards/{card.pk}/suspend/", {}).status_code == 200
    assert sum(kept().values()) == 3
    assert_in_step()
    assert api.post(f"/api/v1/cards/{card.pk}/unsuspend/", {}).status_code == 200
    assert_in_step()
    assert api.post(f"/api/v1/cards/{card.pk}/forget/", {}).status_code == 200  # new again
    assert sum(kept().values()) == 3
    assert_in_step()

    # Writes that pass by the services: a bulk move, a bulk insert, a delete.
    Card.objects.filter(user=learner).update(due=F("due") + timedelta(hours=7, minutes=20))
    assert_in_step()
    other = UserFactory()
    Card.objects.bulk_create(
        Card(
            user=other,
            question=question,
            state=Card.State.REVIEW,
            stability=3.0,
            due=timezone.now() + timedelta(minutes=7 * n),
            seed=n,
        )
        for n, question in enumerate(questions)
    )
    assert sum(n for (user_id, _), n in kept().items() if user_id == other.pk) == 4
    assert_in_step()
    Card.objects.filter(user=other, question=questions[0]).delete()
    assert_in_step()
    other.delete()
    learner.delete()
    assert_in_step()
    assert not kept()


def test_a_forecast_in_a_half_hour_zone_counts_each_card_on_its_own_study_day():
    # Kolkata is 5:30 ahead of UTC; with days starting at 04:00, a study day begins at 22:30
    # UTC, halfway through an hour.
    learner = UserFactory(timezone="Asia/Kolkata", day_starts_at_hour=4)
    now = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
    edge = datetime(2026, 6, 12, 22, 30, tzinfo=UTC)
    dues = [
        now - timedelta(days=40),  # long overdue: today
        edge - timedelta(microseconds=1),
        edge,
        edge + timedelta(minutes=14, seconds=59),
        edge + timedelta(minutes=15),
        now + timedelta(days=FORECAST_DAYS - 2, hours=9),
        now + timedelta(days=FORECAST_DAYS + 3),  # past the month: not shown
    ]
    Card.objects.bulk_create(
        Card(user=learner, question=QuestionFactory(), state=Card.State.REVIEW, due=due, seed=n)
        for n, due in enumerate(dues)
    )
    # One suspended and one new card are not due at all.
    Card.objects.create(user=learner, question=QuestionFactory(), due=now, seed=90)
    Card.objects.create(
        user=learner,
        question=QuestionFactory(),
        state=Card.State.REVIEW,
        suspended=True,
        due=now,
        seed=91,
    )

    forecast = learner_stats(user=learner, now=now).forecast

    today = study_date_at(user=learner, moment=now)
    expected = Counter(max(study_date_at(user=learner, moment=due), today) for due in dues)
    assert {row["date"]: row["due"] for row in forecast if row["due"]} == {
        day.isoformat(): n for day, n in expected.items() if (day - today).days < FORECAST_DAYS
    }
    # The two cards either side of the day's edge fall on two days.
    assert study_date_at(user=learner, moment=edge) - study_date_at(
        user=learner, moment=edge - timedelta(microseconds=1)
    ) == timedelta(days=1)


def test_the_rebuild_counts_the_slots_again_and_the_prune_drops_only_empty_ones():
    learner = UserFactory()
    now = timezone.now()
    Card.objects.bulk_create(
        Card(
            user=learner,
            question=QuestionFactory(),
            state=Card.State.REVIEW,
            due=now + timedelta(hours=n),
            seed=n,
        )
        for n in range(3)
    )
    truth = counted()
    # Counts gone wrong (a restored backup, a trigger dropped by hand), and an emptied slot.
    DueSlot.objects.filter(user=learner).update(cards=F("cards") + 5)
    DueSlot.objects.create(user=learner, slot=now - timedelta(days=3), cards=0)
    assert kept() != truth

    call_command("rollups_rebuild", stdout=open("/dev/null", "w"))  # noqa: SIM115

    assert kept() == truth
    DueSlot.objects.create(user=learner, slot=now - timedelta(days=3), cards=0)
    assert empty_slots_prune() == 1
    assert kept() == truth
    assert DueSlot.objects.count() == len(truth)
    assert scheduled_cards().filter(user=learner).count() == sum(truth.values())
