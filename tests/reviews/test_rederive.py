"""After a kept fit, each of the learner's cards is re-derived from its history with the new
parameters: the card, and each review's card before and after, as a replay of the history
gives them; in batches, idempotent, and not past a newer fit. And Easy from speed only where
the learner's history earned it."""

import uuid
from datetime import timedelta
from itertools import pairwise

import pytest
from django.utils import timezone
from fsrs.scheduler import DEFAULT_PARAMETERS

from accounts.models import User
from engine.scheduling import CardState, Rating, replay
from reviews.cards import card_state, scheduler_config
from reviews.fitting import cards_rederive, refit_sweep
from reviews.models import Answer, Card
from reviews.services import Submitted
from reviews.sync import OfflineReview, reviews_sync
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

OWN = (0.1, 0.6, 1.2, 5.0, *DEFAULT_PARAMETERS[4:8], 0.6, *DEFAULT_PARAMETERS[9:20], 0.4)
SCHEDULE = ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses")


@pytest.fixture
def learner(api):
    user = UserFactory(date_joined=timezone.now() - timedelta(days=60))
    api.authenticate(user)
    return user


def reviewed(api, questions, days_ago):
    """Offline reviews of each question on each of `days_ago`, right except every third."""
    now = timezone.now()
    items = [
        {
            "client_id": str(uuid.uuid4()),
            "question": question.pk,
            "reviewed_at": (now - timedelta(days=ago, minutes=n)).isoformat(),
            "response": "4e6" if (n + ago) % 3 == 0 else "8e6",
            "duration_ms": 20_000,
        }
        for n, question in enumerate(questions)
        for ago in days_ago
    ]
    response = api.post("/api/v1/reviews/sync/", {"reviews": items})
    assert {r["status"] for r in response.json()["results"]} == {"applied"}, response.text


def fitted(user, parameters=OWN):
    """As a kept fit leaves the learner: new parameters, stamped."""
    user.scheduler_parameters = list(parameters)
    user.scheduler_fitted_at = timezone.now()
    user.save(update_fields=["scheduler_parameters", "scheduler_fitted_at"])


def log(card):
    return list(
        Answer.objects.filter(card=card, mode=Answer.Mode.REVIEW).order_by("created_at", "pk")
    )


def replayed(card, history, config):
    """The card as a replay of its review log from new gives it."""
    return replay(
        [(a.created_at, Rating(a.rating)) for a in history],
        start=history[0].created_at,
        config=config,
        seed=card.seed,
    )


def test_a_card_re_derived_after_a_fit_equals_the_replay_of_its_history(api, learner):
    questions = QuestionFactory.create_batch(5)
    reviewed(api, questions, days_ago=(29, 28, 25, 20, 12, 3))
    before = {c.pk: card_state(c) for c in Card.objects.all()}
    fitted(learner)

    assert cards_rederive(user_id=learner.pk, batch_size=2) == 5

    config = scheduler_config(learner)
    assert config.parameters == OWN
    for card in Card.objects.all():
        history = log(card)
        expected = replayed(card, history, config)
        assert card_state(card) == expected
        assert card_state(card) != before[card.pk]  # the new parameters moved it
        # The log agrees with it: each review starts where the one before left the card.
        assert CardState.from_dict(history[0].card_before) == CardState.new(history[0].created_at)
        for earlier, later in pairwise(history):
            assert earlier.card_after == later.card_before
        assert CardState.from_dict(history[-1].card_after) == expected
    learner.refresh_from_db()
    assert learner.scheduler_rederived_at == learner.scheduler_fitted_at


def test_an_answer_stepped_with_the_parameters_before_the_fit_is_stepped_again(
    api, learner, monkeypatch
):
    questions = QuestionFactory.create_batch(4)
    reviewed(api, questions, days_ago=(29, 25, 10))
    stale = User.objects.get(pk=learner.pk)  # as a request that began before the fit read it
    fitted(learner)
    from reviews import fitting as service

    real, batches = service._rederive, []

    def then_answered(user, batch):
        real(user, batch)
        batches.append([card.pk for card in batch])
        if len(batches) == 1:  # that request steps a card whose batch is done, with old ones
            late = OfflineReview(
                index=0,
                client_id=uuid.uuid4(),
                question_id=batch[0].question_id,
                reviewed_at=timezone.now(),
                submitted=Submitted(response="8e6", duration_ms=20_000),
            )
            reviews_sync(user=stale, reviews=[late], refused={}, now=timezone.now())

    monkeypatch.setattr(service, "_rederive", then_answered)

    assert cards_rederive(user_id=learner.pk, batch_size=2) == 4

    first = batches[0][0]
    assert batches == [batches[0], batches[1], [first]]  # then the card answered meanwhile
    config = scheduler_config(learner)
    for card in Card.objects.all():
        history = log(card)
        expected = replayed(card, history, config)
        assert card_state(card) == expected
        assert CardState.from_dict(history[-1].card_after) == expected
    assert len(log(Card.objects.get(pk=first))) == 4


def test_re_deriving_again_changes_nothing_and_the_sweep_no_longer_owes_it(api, learner):
    reviewed(api, QuestionFactory.create_batch(3), days_ago=(29, 25, 10))
    fitted(learner)
    owed: list[int] = []
    refit_sweep(refit=lambda user_id: None, rederive=owed.append)
    assert owed == [learner.pk]

    cards_rederive(user_id=learner.pk)
    once = list(Card.objects.order_by("pk").values(*SCHEDULE))
    logs = list(Answer.objects.order_by("pk").values("card_before", "card_after", "rating"))
    assert cards_rederive(user_id=learner.pk) == 3

    assert list(Card.objects.order_by("pk").values(*SCHEDULE)) == once
    assert list(Answer.objects.order_by("pk").values("card_before", "card_after", "rating")) == logs
    refit_sweep(refit=lambda user_id: None, rederive=owed.append)
    assert owed == [learner.pk]


def test_a_re_derivation_overtaken_by_a_newer_fit_stops(api, learner, monkeypatch):
    reviewed(api, QuestionFactory.create_batch(4), days_ago=(29, 25, 10))
    fitted(learner)
    first_fit = learner.scheduler_fitted_at
    steps = []
    from reviews import fitting as service

    real = service._rederive

    def then_refitted(user, batch):
        real(user, batch)
        steps.append(len(batch))
        fitted(learner, DEFAULT_PARAMETERS)  # a newer fit lands between two batches

    monkeypatch.setattr(service, "_rederive", then_refitted)

    assert cards_rederive(user_id=learner.pk, batch_size=2) is None
    assert steps == [2]
    learner.refresh_from_db()
    assert learner.scheduler_rederived_at is None
    assert learner.scheduler_fitted_at > first_fit


def test_a_fast_right_answer_is_good_until_the_learner_earned_easy(api, learner):
    fast, later = QuestionFactory(), QuestionFactory()

    body = api.post(
        f"/api/v1/questions/{fast.pk}/answers/", {"response": "8e6", "duration_ms": 900}
    ).json()
    assert body["review"]["rating"] == "good"
    assert Answer.objects.get(question=fast).rating == Rating.GOOD

    learner.easy_answer_ms = 4_000  # as a check of their history would set it
    learner.save(update_fields=["easy_answer_ms"])
    quick = api.post(
        f"/api/v1/questions/{later.pk}/answers/", {"response": "8e6", "duration_ms": 3_500}
    ).json()
    assert quick["review"]["rating"] == "easy"
    slow = api.post(
        f"/api/v1/questions/{QuestionFactory().pk}/answers/",
        {"response": "8e6", "duration_ms": 4_000},
    ).json()
    assert slow["review"]["rating"] == "good"
    # A wrong answer stays Again however fast; the learner's own rating still wins.
    wrong = api.post(
        f"/api/v1/questions/{QuestionFactory().pk}/answers/",
        {"response": "4e6", "duration_ms": 500},
    ).json()
    assert wrong["review"]["rating"] == "again"
