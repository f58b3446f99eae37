"""Fitting a learner's scheduler: only with enough usable history, kept only when it predicts
later reviews better, each card then re-derived; Easy from speed only where it was earned."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from engine import fitting
from reviews import fitting as service
from reviews.cards import scheduler_config
from reviews.fitting import (
    refit_sweep,
    review_histories,
    scheduler_fit,
    scheduler_refit,
    usable_reviews,
)
from reviews.models import Answer
from tests.factories import LessonFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


def simulate(
    user,
    *,
    cards: int,
    reviews_each: int,
    seed: int = 5,
    start: datetime = datetime(2026, 1, 1, 9, tzinfo=UTC),
    day: timedelta = timedelta(days=1),
) -> None:
    """A learner who recalls less the longer a card has waited (no clock, a seeded generator);
    gaps are counted in `day`s."""
    rng = np.random.default_rng(seed)
    lesson = LessonFactory()
    rows = []
    for question in QuestionFactory.create_batch(cards, lesson=lesson):
        when, gap = start, 1
        for _ in range(reviews_each):
            recalled = rng.random() < 0.95 ** (gap / 3)
            rows.append(
                Answer(
                    user=user, question=question, question_version=1, status="correct",
                    score=1, rating=3 if recalled else 1, created_at=when,
                )
            )  # fmt: skip
            gap = gap * 2 if recalled else 1
            when += gap * day
    Answer.objects.bulk_create(rows)


def test_too_little_history_keeps_the_defaults():
    user = UserFactory()
    simulate(user, cards=5, reviews_each=4)

    outcome = scheduler_fit(user=user, now=datetime(2026, 6, 1, tzinfo=UTC))

    assert outcome.kept is False
    assert 0 < outcome.reviews < 400
    user.refresh_from_db()
    assert user.scheduler_parameters is None


def test_a_fit_is_kept_only_when_it_predicts_the_history_better():
    user = UserFactory()
    simulate(user, cards=60, reviews_each=9)
    assert sum(len(h) for h in review_histories(user=user)) == 540

    outcome = scheduler_fit(user=user, now=datetime(2026, 6, 1, tzinfo=UTC))

    user.refresh_from_db()
    assert outcome.log_loss_before is not None
    assert outcome.log_loss_after is not None
    if outcome.kept:
        assert outcome.log_loss_after < outcome.log_loss_before
    assert (user.scheduler_parameters is not None) == outcome.kept
    kept = tuple(user.scheduler_parameters or ()) or None
    assert scheduler_config(user).parameters == kept


def test_the_refit_sweep_hands_on_learners_with_enough_new_reviews_once():
    ready, short = UserFactory(), UserFactory()
    simulate(ready, cards=60, reviews_each=9)
    simulate(short, cards=10, reviews_each=9)
    handed: list[int] = []

    assert refit_sweep(refit=handed.append, batch_size=1) == 1
    assert handed == [ready.pk]

    now = datetime(2026, 6, 1, tzinfo=UTC)
    first = scheduler_refit(user_id=ready.pk, now=now)
    assert first is not None
    assert first.reviews == 480  # 540 less each card's first review, which predicts nothing
    ready.refresh_from_db()
    assert ready.scheduler_checked_at == now
    # Run again (a task delivered twice): nothing new since the fit, so nothing is done.
    assert scheduler_refit(user_id=ready.pk, now=now) is None
    assert refit_sweep(refit=handed.append) == 0
    assert handed == [ready.pk]


def test_the_sweep_counts_only_reviews_a_fit_can_use():
    usable, same_day = UserFactory(), UserFactory()
    simulate(usable, cards=60, reviews_each=9)
    # As many answers, but each a few minutes after the one before: learning steps.
    simulate(same_day, cards=60, reviews_each=9, day=timedelta(minutes=3))
    handed: list[int] = []

    refit_sweep(refit=handed.append)

    assert handed == [usable.pk]
    for user in (usable, same_day):
        assert usable_reviews(user_ids=[user.pk]).count() == fitting.scored_reviews(
            review_histories(user=user)
        )
    assert usable_reviews(user_ids=[same_day.pk]).count() == 0


def test_a_check_that_found_too_few_waits_for_more(monkeypatch):
    user = UserFactory()
    simulate(user, cards=60, reviews_each=9)
    monkeypatch.setattr(service.fitting, "fit", lambda *args, **kwargs: None)
    handed: list[int] = []
    now = datetime(2026, 6, 1, tzinfo=UTC)

    outcome = scheduler_refit(user_id=user.pk, now=now)

    assert outcome is not None
    assert not outcome.kept
    assert outcome.log_loss_before is None
    user.refresh_from_db()
    assert user.scheduler_checked_at == now
    assert user.scheduler_parameters is None
    assert refit_sweep(refit=handed.append) == 0
    # Enough usable reviews after the check hand the learner on again.
    simulate(user, cards=40, reviews_each=6, start=now + timedelta(days=1))
    assert refit_sweep(refit=handed.append) == 1
    assert handed == [user.pk]


def test_a_check_sets_the_learners_easy_threshold_only_where_their_history_earns_it():
    from tests.engine.test_fitting import timed_learner

    lesson = LessonFactory()
    questions = QuestionFactory.create_batch(400, lesson=lesson)
    now = datetime(2026, 6, 1, tzinfo=UTC)

    def answers(user, histories):
        Answer.objects.bulk_create(
            Answer(
                user=user, question=question, question_version=1,
                status="correct" if rating > 1 else "incorrect", score=float(rating > 1),
                rating=rating, duration_ms=took if took is not None else 20_000, created_at=when,
            )
            for question, card in zip(questions, histories, strict=True)
            for when, rating, took in card
        )  # fmt: skip

    earned, alike = UserFactory(), UserFactory()
    answers(earned, timed_learner(1, fast_pass=0.99, slow_pass=0.88))
    answers(alike, timed_learner(2, fast_pass=0.88, slow_pass=0.88))

    assert scheduler_fit(user=earned, now=now).easy_answer_ms == 3_000
    assert scheduler_fit(user=alike, now=now).easy_answer_ms is None
    earned.refresh_from_db()
    alike.refresh_from_db()
    assert (earned.easy_answer_ms, alike.easy_answer_ms) == (3_000, None)


def test_an_earlier_fit_gives_way_to_the_defaults_when_fits_predict_worse():
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from tests.engine.test_fitting import learner

    # A learner whose memory is the defaults, with a fit kept on noise (as fits once were).
    usual = learner(3, cards=60, reviews=10, truth=DEFAULT_PARAMETERS)
    before = datetime(2025, 6, 1, tzinfo=UTC)
    user = UserFactory(
        scheduler_parameters=list(fitting.fitted(usual)),
        scheduler_fitted_at=before,
        scheduler_rederived_at=before,
    )
    rows = []
    for question, history in zip(QuestionFactory.create_batch(len(usual)), usual, strict=True):
        rows += [
            Answer(
                user=user, question=question, question_version=1, score=int(rating > 1),
                status="correct" if rating > 1 else "incorrect", rating=rating, created_at=when,
            )
            for when, rating in history
        ]  # fmt: skip
    Answer.objects.bulk_create(rows)
    now = datetime(2026, 6, 1, tzinfo=UTC)

    outcome = scheduler_fit(user=user, now=now)

    assert not outcome.kept
    assert outcome.back_to_defaults
    assert outcome.changed
    assert outcome.log_loss_after > outcome.log_loss_before
    user.refresh_from_db()
    assert user.scheduler_parameters is None
    assert scheduler_config(user).parameters is None
    assert user.scheduler_fitted_at == now
    # Its cards are owed a re-derivation with the defaults.
    owed: list[int] = []
    refit_sweep(refit=lambda user_id: None, rederive=owed.append)
    assert owed == [user.pk]


def test_a_check_raises_the_aim_to_make_up_for_reviews_no_schedule_can_place():
    from tests.engine.test_fitting import cards_seen_twice

    histories = cards_seen_twice(missed=60, learned=240)
    questions = QuestionFactory.create_batch(300, lesson=LessonFactory())
    user = UserFactory()
    Answer.objects.bulk_create(
        Answer(
            user=user, question=question, question_version=1,
            status="correct" if rating > 1 else "incorrect", score=float(rating > 1),
            rating=rating, created_at=when,
        )
        for question, card in zip(questions, histories, strict=True)
        for when, rating in card
    )  # fmt: skip
    expected = fitting.retention_raise(histories, None, 0.9)
    assert 0.005 < expected < fitting.RAISE_MAX

    scheduler_fit(user=user, now=datetime(2026, 6, 1, tzinfo=UTC))

    user.refresh_from_db()
    assert user.retention_raise == expected
    assert user.scheduled_retention == round(0.9 + expected, 4)
    assert scheduler_config(user).desired_retention == user.scheduled_retention
    # The aim never passes the highest retention a learner may ask for.
    user.desired_retention = 0.98
    assert scheduler_config(user).desired_retention == 0.99


def test_the_raise_is_held_in_range_by_the_database():
    from django.db import IntegrityError, transaction

    user = UserFactory()
    type(user).objects.filter(pk=user.pk).update(retention_raise=fitting.RAISE_MAX)
    for bad in (-0.01, fitting.RAISE_MAX + 0.01):
        with pytest.raises(IntegrityError), transaction.atomic():
            type(user).objects.filter(pk=user.pk).update(retention_raise=bad)
