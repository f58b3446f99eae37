"""A learner's numbers, checked against a hand count on a known history."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import entitlements
from accounts import services as account_services
from accounts.models import Grant
from engine.scheduling import retrievability
from reviews.models import Answer, Card
from reviews.rollups import rebuild_everyone
from reviews.stats import cards_by_state, learner_stats
from tests.factories import QuestionFactory, UserFactory
from tests.reviews.test_queue import deck

pytestmark = pytest.mark.django_db


def reviewed(user, question, *, at, state="review", rating=3):
    row = Answer.objects.create(
        user=user, question=question, question_version=1, status="correct", score=1,
        rating=rating, card_before={"state": state},
    )  # fmt: skip
    Answer.objects.filter(pk=row.pk).update(created_at=at)


def test_stats_match_a_hand_count():
    user = UserFactory(timezone="UTC", day_starts_at_hour=0, new_cards_per_day=5)
    now = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)
    q1, q2, q3 = QuestionFactory.create_batch(3)
    QuestionFactory.create_batch(2)  # never seen
    for days_ago in (0, 1, 2, 4):  # a streak of three days, then a gap
        reviewed(user, q1, at=now - timedelta(days=days_ago))
    reviewed(user, q2, at=now - timedelta(hours=1), rating=1)  # a lapse today
    reviewed(user, q3, at=now - timedelta(hours=2), state="new")  # introduced today
    for question, due in ((q1, now - timedelta(days=1)), (q2, now), (q3, now + timedelta(days=3))):
        Card.objects.create(
            user=user, question=question, state="review", due=due, stability=10.0,
            difficulty=5.0, last_review=now - timedelta(days=1), seed=1,
        )  # fmt: skip
    rebuild_everyone()  # the answers above were written straight to the log

    stats = learner_stats(user=user, now=now, days=7)

    assert stats.reviews_today == 3
    assert stats.streak_days == 3
    assert stats.true_retention == pytest.approx(4 / 5)  # five review-state answers, one failed
    assert stats.due_today == 2  # one overdue, one due now
    assert stats.forecast[3]["due"] == 1
    assert len(stats.forecast) == 30
    assert stats.new_available == 2  # two unseen, four of five new left today
    assert [d["reviews"] for d in stats.heatmap] == [0, 0, 1, 0, 1, 1, 3]
    assert 0.9 < stats.average_retrievability < 1.0


def test_a_new_learner_has_empty_numbers():
    stats = learner_stats(user=UserFactory(), now=timezone.now())

    assert (stats.reviews_today, stats.streak_days, stats.due_today) == (0, 0, 0)
    assert stats.true_retention is None
    assert stats.average_retrievability is None
    assert len(stats.heatmap) == 365


def test_stats_cost_the_same_for_10_cards_as_for_2000(client):
    counts = []
    for size in (10, 2_000):
        user = deck(size)
        _, key = account_services.token_create(user=user)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(
                "/api/v1/stats/",
                headers={"Authorization": f"Token {key}", "X-Forwarded-Proto": "https"},
            )
        assert response.status_code == 200, response.content
        assert response.json()["due_today"] == size
        counts.append(len(queries))

    assert counts[0] == counts[1], counts


def test_cards_by_state_counts_what_the_learner_has_in_each_state():
    learner = UserFactory()
    free, pro, archived = (
        QuestionFactory(),
        QuestionFactory(section__access="pro"),
        QuestionFactory(archived_at=timezone.now()),
    )

    def card(user, question, state, **fields) -> None:
        Card.objects.create(
            user=user, question=question, state=state, due=timezone.now(), seed=1, **fields
        )

    for state in ["learning", "review", "review", "relearning"]:
        card(learner, QuestionFactory(), state)
    for question in (free, pro, archived):
        card(learner, question, "new")
    card(learner, QuestionFactory(), "new", suspended=True)
    card(learner, QuestionFactory(), "review", suspended=True)
    card(UserFactory(), free, "review")

    counts = cards_by_state(user=learner)

    # New: only the free, live question's card (Pro is closed to this learner, one is gone).
    assert counts == {"new": 1, "learning": 1, "review": 2, "relearning": 1, "suspended": 2}
    entitlements.grant_add(user_id=learner.pk, source=Grant.Source.STAFF, reference="test")
    learner.refresh_from_db()
    assert cards_by_state(user=learner)["new"] == 2


def test_recall_now_is_the_engines_forgetting_curve_computed_in_the_database():
    learner = UserFactory()
    now = timezone.now()
    cards = [  # stability (days), time since the last review
        (0.5, timedelta(hours=20)),
        (3.2, timedelta(days=2, hours=23)),
        (40.0, timedelta(days=90)),
        (0.0, timedelta(days=1)),  # no stability yet: no recall
        (7.0, -timedelta(hours=5)),  # a clock ahead: none below 0 days
    ]
    for stability, ago in cards:
        Card.objects.create(
            user=learner,
            question=QuestionFactory(),
            state="review",
            stability=stability,
            last_review=now - ago,
            due=now,
            seed=1,
        )
    Card.objects.create(user=learner, question=QuestionFactory(), state="new", due=now, seed=1)

    expected = retrievability(
        [s for s, _ in cards], [max((now - (now - ago)).days, 0) for _, ago in cards]
    )

    stats = learner_stats(user=learner, now=now)
    assert stats.average_retrievability == pytest.approx(float(expected.mean()), rel=1e-12)
    assert 0 < stats.average_retrievability < 1


def test_past_the_sample_size_recall_is_the_mean_over_the_cards_of_lowest_seed(monkeypatch):
    monkeypatch.setattr("reviews.stats.RECALL_SAMPLE", 40)
    learner = UserFactory()
    now = timezone.now()
    rows = [  # seeds out of step with the order of making; stability and age vary with both
        (
            (n * 7_919) % 1_000,
            0.5 + (n * 37) % 60,
            timedelta(days=(n * 13) % 120, hours=n % 24),
        )
        for n in range(150)
    ]
    Card.objects.bulk_create(
        Card(
            user=learner,
            question=QuestionFactory(),
            state="review",
            stability=stability,
            last_review=now - ago,
            due=now,
            seed=seed,
        )
        for seed, stability, ago in rows
    )
    drawn = sorted(rows)[:40]

    stats = learner_stats(user=learner, now=now)

    expected = retrievability([s for _, s, _ in drawn], [ago.days for _, _, ago in drawn])
    everyone = retrievability([s for _, s, _ in rows], [ago.days for _, _, ago in rows])
    assert stats.average_retrievability == pytest.approx(float(expected.mean()), rel=1e-12)
    assert float(expected.mean()) != pytest.approx(float(everyone.mean()), rel=1e-6)
