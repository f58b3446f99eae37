"""Fitting a learner's FSRS parameters: on a simulated learner whose parameters we know."""

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS

from engine import fitting
from engine.scheduling import CardState, Rating, SchedulerConfig, retrievability_at, review

START = datetime(2025, 1, 6, 8, tzinfo=UTC)
# A learner who forgets new cards faster than FSRS's average learner, and on a steeper curve.
FORGETFUL = (0.1, 0.6, 1.2, 5.0, *DEFAULT_PARAMETERS[4:8], 1.2, *DEFAULT_PARAMETERS[9:20], 0.4)


def learner(seed: int, *, cards: int, reviews: int) -> list[list[tuple[datetime, int]]]:
    """Histories of a simulated learner: each review recalled with the chance their own
    parameters give, taken when due or a little late."""
    rng = np.random.default_rng(seed)
    config = SchedulerConfig(parameters=FORGETFUL, enable_fuzzing=False)
    histories = []
    for _ in range(cards):
        now = START + timedelta(days=float(rng.uniform(0, 30)))
        state, history = CardState.new(now), []
        for _ in range(reviews):
            if state.state == "new":
                rating = Rating(int(rng.choice(4, p=[0.3, 0.2, 0.4, 0.1])) + 1)
            elif rng.random() < retrievability_at([state], now=now, parameters=FORGETFUL)[0]:
                rating = Rating(int(rng.choice(3, p=[0.15, 0.75, 0.1])) + 2)
            else:
                rating = Rating.AGAIN
            state = review(state, rating, now=now, config=config).state
            history.append((now, int(rating)))
            now = state.due + timedelta(days=float(rng.exponential(2.0)))
        histories.append(history)
    return histories


@pytest.fixture(scope="module")
def histories() -> list[list[tuple[datetime, int]]]:
    return learner(1, cards=60, reviews=10)


def test_a_learner_with_too_few_reviews_gets_no_fit() -> None:
    few = learner(2, cards=5, reviews=10)

    assert fitting.fit(few) is None
    assert fitting.fit([]) is None


def test_the_minimum_counts_scored_reviews(histories: list[list[tuple[datetime, int]]]) -> None:
    scored = fitting.scored_reviews(histories)

    assert fitting.fit(histories, min_reviews=scored + 1) is None
    assert fitting.fit(histories, min_reviews=scored) is not None


def test_a_fit_to_a_forgetful_learner_predicts_them_better_than_the_defaults(
    histories: list[list[tuple[datetime, int]]],
) -> None:
    result = fitting.fit(histories)

    assert result is not None
    assert result.reviews == fitting.scored_reviews(histories) >= fitting.MIN_REVIEWS
    assert len(result.parameters) == len(DEFAULT_PARAMETERS)
    assert SchedulerConfig(parameters=result.parameters).parameters == result.parameters
    assert result.parameters[0] < DEFAULT_PARAMETERS[0]
    assert result.log_loss_fitted == fitting.evaluate(histories, result.parameters)
    assert result.log_loss_current == fitting.evaluate(histories)
    assert result.better


def test_a_fit_is_compared_with_the_parameters_in_use(
    histories: list[list[tuple[datetime, int]]],
) -> None:
    result = fitting.fit(histories, current=FORGETFUL)

    assert result is not None
    assert result.log_loss_current == fitting.evaluate(histories, FORGETFUL)


def test_a_fit_is_repeatable(histories: list[list[tuple[datetime, int]]]) -> None:
    assert fitting.fit(histories) == fitting.fit(histories)


def test_evaluate_gives_finite_log_losses_and_prefers_the_true_parameters(
    histories: list[list[tuple[datetime, int]]],
) -> None:
    default = fitting.evaluate(histories)
    true = fitting.evaluate(histories, FORGETFUL)

    assert math.isfinite(default)
    assert math.isfinite(true)
    assert 0 < true < default


def test_history_order_does_not_matter(histories: list[list[tuple[datetime, int]]]) -> None:
    shuffled = [list(reversed(h)) for h in histories]

    assert fitting.evaluate(shuffled) == fitting.evaluate(histories)


def test_only_reviews_a_day_or_more_after_the_previous_one_are_scored() -> None:
    card = [
        (START, 1),
        (START + timedelta(minutes=10), 3),
        (START + timedelta(days=1, hours=1), 3),
        (START + timedelta(days=1, hours=2), 3),
        (START + timedelta(days=4), 1),
    ]

    assert fitting.scored_reviews([card]) == 2


@pytest.mark.parametrize(
    ("card", "reason"),
    [
        ([(datetime(2025, 1, 6, 8), 3)], "timezone-aware"),
        ([(START, 0)], "a rating is"),
        ([(START, 5)], "a rating is"),
        ([(START, 2.5)], "a rating is"),
        ([(START, True)], "a rating is"),
    ],
)
def test_unusable_histories_are_refused(card: list[tuple[datetime, int]], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        fitting.scored_reviews([card])


def test_evaluating_nothing_scored_says_why() -> None:
    with pytest.raises(ValueError, match="a day or more"):
        fitting.evaluate([[(START, 3), (START + timedelta(hours=2), 3)]])
