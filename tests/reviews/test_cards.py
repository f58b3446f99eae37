"""Every review-mode answer steps the learner's card, as FSRS computes it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from engine.scheduling import CardState, Rating, SchedulerConfig, review, review_rng
from reviews.cards import card_review
from reviews.models import Answer, Card
from tests.conftest import assert_problem
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


def answer(api, question, typed, **extra):
    return api.post(f"/api/v1/questions/{question.pk}/answers/", {"response": typed, **extra})


def test_a_review_answer_makes_and_steps_a_card(api, learner):
    question = QuestionFactory()

    body = answer(api, question, "8e6", duration_ms=20_000).json()

    card = Card.objects.get(user=learner, question=question)
    assert body["review"]["card_id"] == card.pk
    assert body["review"]["rating"] == "good"
    assert body["review"]["state"] == card.state == "learning"
    assert card.reps == 1
    stored = Answer.objects.get()
    assert (stored.card, stored.rating) == (card, Rating.GOOD)
    assert stored.card_before["state"] == "new"
    assert stored.card_after == CardState.from_dict(stored.card_after).to_dict()


def test_the_step_equals_what_fsrs_computes_for_the_same_inputs(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6", duration_ms=20_000)
    stored = Answer.objects.get()
    card = Card.objects.get()

    expected = review(
        CardState.from_dict(stored.card_before),
        Rating.GOOD,
        now=stored.created_at,
        config=SchedulerConfig(desired_retention=learner.desired_retention),
        rng=review_rng(card.seed, 0),
    )

    assert abs(expected.state.due - card.due) < timedelta(seconds=5)
    assert expected.state.stability == pytest.approx(card.stability)
    assert expected.state.difficulty == pytest.approx(card.difficulty)


def test_practice_answers_leave_the_schedule_alone(api, learner):
    body = answer(api, QuestionFactory(), "8e6", mode="practice").json()

    assert body["review"] is None
    assert Card.objects.count() == 0


def test_right_every_time_the_intervals_grow_and_wrong_sends_a_card_to_relearning(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")
    intervals = []
    for _ in range(4):
        card = Card.objects.get()
        # Time passes until the card is due: move its history back instead of the clock.
        shift = card.due - timezone.now() + timedelta(minutes=1)
        Card.objects.filter(pk=card.pk).update(
            due=card.due - shift, last_review=card.last_review - shift
        )
        intervals.append(answer(api, question, "8e6", duration_ms=20_000).json()["review"])
    days = [r["interval_days"] for r in intervals]
    assert days == sorted(days)
    assert days[-1] > days[0] >= 0.0
    assert intervals[-1]["state"] == "review"

    wrong = answer(api, question, "4e6").json()["review"]

    assert (wrong["state"], wrong["rating"]) == ("relearning", "again")
    assert Card.objects.get().lapses == 1


def test_free_text_is_scheduled_by_the_learners_own_rating(api, learner):
    question = QuestionFactory(kind="free_text", answer=None, mistakes=[], model_answer_html="x")
    reveal = api.post(f"/api/v1/questions/{question.pk}/reveal/", {}).json()["id"]

    body = answer(api, question, "norm, attention, add", self_rating="easy", reveal=reveal).json()

    assert body["review"]["rating"] == "easy"


def test_cards_list_with_their_chance_of_recall(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")
    other = UserFactory()
    Card.objects.create(user=other, question=QuestionFactory(), due=timezone.now(), seed=1)

    body = api.get("/api/v1/cards/").json()

    assert body["count"] == 1
    listed = body["results"][0]
    assert listed["question"] == question.pk
    assert 0.9 < listed["retrievability"] <= 1.0


def test_suspend_unsuspend_and_forget(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")
    card = Card.objects.get()
    base = f"/api/v1/cards/{card.pk}"

    assert api.post(f"{base}/suspend/").json()["suspended"] is True
    assert api.get("/api/v1/cards/", params={"suspended": "true"}).json()["count"] == 1
    assert api.post(f"{base}/unsuspend/").json()["suspended"] is False
    forgotten = api.post(f"{base}/forget/").json()

    assert (forgotten["state"], forgotten["reps"], forgotten["stability"]) == ("new", 0, None)


def test_another_learners_card_is_404(api, learner):
    card = Card.objects.create(
        user=UserFactory(), question=QuestionFactory(), due=timezone.now(), seed=1
    )

    for action in ("suspend", "unsuspend", "forget"):
        assert_problem(api.post(f"/api/v1/cards/{card.pk}/{action}/"), 404)
    assert Card.objects.get().suspended is False


def test_eight_lapses_make_a_leech_that_is_suspended(api, learner, settings):
    question = QuestionFactory()
    answer(api, question, "8e6")
    Card.objects.update(state="review", stability=5.0, difficulty=5.0, step=None, lapses=7)

    body = answer(api, question, "4e6").json()

    card = Card.objects.get()
    assert (card.lapses, card.leech, card.suspended) == (8, True, True)
    assert body["review"]["leech"] is True


def test_the_export_holds_answers_and_cards(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")

    body = api.get("/api/v1/me/export/").json()

    assert body["answers"][0]["question"] == question.key
    assert body["answers"][0]["rating"] == Rating.GOOD
    assert body["cards"][0]["question__key"] == question.key
    assert body["cards"][0]["reps"] == 1


def test_undo_restores_the_card_field_for_field_and_removes_the_answer(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")
    before = Card.objects.values().get()
    answer(api, question, "4e6")

    undone = api.post("/api/v1/reviews/undo/")

    assert undone.status_code == 200, undone.text
    assert Card.objects.values().get() == before
    assert Answer.objects.count() == 1
    assert undone.json()["card"]["reps"] == 1


def test_undoing_a_first_review_removes_the_card_it_made(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")

    body = api.post("/api/v1/reviews/undo/").json()

    assert body == {"question": question.pk, "card": None}
    assert (Card.objects.count(), Answer.objects.count()) == (0, 0)
    assert_problem(api.post("/api/v1/reviews/undo/"), 404)


def test_undo_takes_back_only_the_callers_reviews(api, other_api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")
    other_api.authenticate(UserFactory())

    assert_problem(other_api.post("/api/v1/reviews/undo/"), 404)
    assert Answer.objects.count() == 1


def test_an_answer_whose_clock_reading_lost_the_race_counts_as_given_after_the_first(learner):
    question = QuestionFactory()
    first = timezone.now()
    card, _, _ = card_review(
        card=None, user=learner, question=question, rating=Rating.GOOD, now=first
    )

    card, before, outcome = card_review(
        card=card, user=learner, question=question, rating=Rating.GOOD,
        now=first - timedelta(milliseconds=3),
    )  # fmt: skip

    assert before.last_review == first
    assert outcome.state.last_review == first
    assert card.reps == 2


def test_cards_made_ahead_for_unseen_questions_are_not_listed_nor_exported(api, learner):
    seen, unseen = QuestionFactory(), QuestionFactory()
    api.get("/api/v1/reviews/queue/")
    answer(api, seen, "8e6")
    made_ahead = Card.objects.get(user=learner, question=unseen)

    listed = api.get("/api/v1/cards/").json()
    exported = api.get("/api/v1/me/export/").json()

    assert [c["question"] for c in listed["results"]] == [seen.pk]
    assert [c["question__key"] for c in exported["cards"]] == [seen.key]
    assert_problem(api.post(f"/api/v1/cards/{made_ahead.pk}/suspend/"), 404)


def test_undoing_the_first_review_of_a_card_made_ahead_brings_it_back_as_new(api, learner):
    question = QuestionFactory()
    api.get("/api/v1/reviews/queue/")
    answer(api, question, "8e6")

    undone = api.post("/api/v1/reviews/undo/").json()
    queue = api.get("/api/v1/reviews/queue/").json()

    assert undone == {"question": question.pk, "card": None}
    assert [(c["card_id"], c["question"]["id"]) for c in queue["cards"]] == [(None, question.pk)]
    assert Card.objects.get(user=learner).state == "new"


def test_forgetting_starts_the_log_over_and_undo_does_not_reach_behind_it(api, learner):
    question = QuestionFactory()
    answer(api, question, "8e6")
    answer(api, question, "8e6")
    card = Card.objects.get()

    forgotten = api.post(f"/api/v1/cards/{card.pk}/forget/").json()

    card.refresh_from_db()
    assert forgotten["state"] == "new"
    assert card.reset_at is not None
    assert card.reset_at >= Answer.objects.latest("created_at").created_at
    assert_problem(api.post("/api/v1/reviews/undo/"), 404)
    assert Answer.objects.count() == 2
    assert Card.objects.get().state == "new"
    # The first review after the reset is counted as new, and undone back to the reset.
    before = Card.objects.values().get()
    body = answer(api, question, "8e6").json()
    assert Answer.objects.get(pk=body["answer_id"]).card_before["state"] == "new"
    assert api.post("/api/v1/reviews/undo/").status_code == 200
    assert Card.objects.values().get() == before
