"""Fitting a learner's FSRS parameters: on a simulated learner whose parameters we know."""

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS

from engine import fitting
from engine.scheduling import CardState, Rating, SchedulerConfig, retrievability_at, review

START = datetime(2025, 1, 6, 8, tzinfo=UTC)
# A learner who forgets new cards faster than FSRS's average learner, whose memories grow
# more slowly with each review, on a steeper curve.
FORGETFUL = (0.1, 0.6, 1.2, 5.0, *DEFAULT_PARAMETERS[4:8], 0.6, *DEFAULT_PARAMETERS[9:20], 0.4)


def learner(
    seed: int, *, cards: int, reviews: int, truth: tuple[float, ...] = FORGETFUL
) -> list[list[tuple[datetime, int]]]:
    """Histories of a simulated learner: each review recalled with the chance their own
    parameters (`truth`) give, taken when due or a little late."""
    rng = np.random.default_rng(seed)
    config = SchedulerConfig(parameters=truth, enable_fuzzing=False)
    histories = []
    for _ in range(cards):
        now = START + timedelta(days=float(rng.uniform(0, 30)))
        state, history = CardState.new(now), []
        for _ in range(reviews):
            if state.state == "new":
                rating = Rating(int(rng.choice(4, p=[0.3, 0.2, 0.4, 0.1])) + 1)
            elif rng.random() < retrievability_at([state], now=now, parameters=truth)[0]:
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
    return learner(1, cards=150, reviews=10)


def test_a_learner_with_too_few_reviews_gets_no_fit() -> None:
    few = learner(2, cards=5, reviews=10)

    assert fitting.fit(few) is None
    assert fitting.fit([]) is None


def test_the_minimum_counts_scored_reviews(histories: list[list[tuple[datetime, int]]]) -> None:
    scored = fitting.scored_reviews(histories)

    assert fitting.fit(histories, min_reviews=scored + 1) is None
    assert fitting.scored(histories).at.size == scored
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
    assert result.kept
    assert result.z >= fitting.MARGIN_Z
    assert result.log_loss_fitted < result.log_loss_defaults
    # Judged on the later half of the scored reviews, which the judged fits did not see;
    # what is kept is the fit to everything.
    assert result.judged_on == pytest.approx(result.reviews / 2, abs=5)
    assert result.parameters == fitting.fitted(histories)


def later_half(histories, parameters) -> float:
    """Log loss of `parameters` on the later half of the scored reviews."""
    reviews = fitting.scored(histories, parameters)
    half = len(reviews.at) // 2
    later = reviews.at >= reviews.at[half]
    return float(reviews.losses()[later].mean())


def test_each_check_judges_against_the_defaults_and_refits_an_earlier_fit(
    histories: list[list[tuple[datetime, int]]],
) -> None:
    # The parameters in use, an earlier fit (here the learner's true ones), were made on part
    # of the reviews the check judges on: the fits are judged against the defaults instead.
    result = fitting.fit(histories, current=FORGETFUL)

    assert result is not None
    assert result.log_loss_defaults == pytest.approx(later_half(histories, DEFAULT_PARAMETERS))
    assert result.kept
    assert not result.back_to_defaults
    # What is kept is the fit on the whole history, holding what it does not settle.
    assert result.parameters == fitting.fitted(histories, FORGETFUL)


def test_a_fit_that_only_wins_in_sample_is_not_kept() -> None:
    # A learner whose memory is exactly the defaults: any fit can only fit noise.
    usual = learner(3, cards=60, reviews=10, truth=DEFAULT_PARAMETERS)
    in_sample = fitting.fitted(usual)
    assert fitting.evaluate(usual, in_sample) < fitting.evaluate(usual)  # it wins in-sample

    result = fitting.fit(usual)

    assert result is not None
    assert result.reviews >= fitting.MIN_REVIEWS
    assert not result.kept
    assert result.z < fitting.MARGIN_Z
    assert not result.back_to_defaults  # the defaults are in use already

    # Had that fit been kept before (as fits were once judged), the defaults come back: the
    # fits predict the later reviews worse than the defaults do.
    again = fitting.fit(usual, current=in_sample)

    assert again is not None
    assert again.log_loss_fitted > again.log_loss_defaults
    assert not again.kept
    assert again.back_to_defaults


def test_what_the_history_does_not_settle_stays_as_it_was(
    histories: list[list[tuple[datetime, int]]],
) -> None:
    # Of 150 cards about 15 started Easy: too few to say where Easy starts.
    firsts = [h[0][1] for h in histories]
    assert firsts.count(4) < fitting.SETTLED_BY
    assert firsts.count(3) >= fitting.SETTLED_BY
    mine = (*DEFAULT_PARAMETERS[:1], 1.1, 2.0, 9.5, *DEFAULT_PARAMETERS[4:])

    result = fitting.fitted(histories, mine)

    assert result[3] == 9.5
    assert result[2] != 2.0


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


def timed_learner(seed: int, *, fast_pass: float, slow_pass: float, cards: int = 400):
    """Each card answered right once (Good by the machine), fast or slow, then reviewed three
    days later: passed with `fast_pass` after a fast answer, `slow_pass` after a slow one."""
    rng = np.random.default_rng(seed)
    histories = []
    for index in range(cards):
        fast = index % 2 == 0
        took = int(rng.integers(1_000, 2_500)) if fast else int(rng.integers(9_000, 30_000))
        first = START + timedelta(hours=index)
        passed = rng.random() < (fast_pass if fast else slow_pass)
        histories.append([(first, 3, took), (first + timedelta(days=3), 3 if passed else 1, None)])
    return histories


def test_fast_answers_earn_easy_only_when_they_are_remembered_better() -> None:
    # Good's starting stability gives about 0.88 after three days.
    chance = fitting.scored([[(START, 3), (START + timedelta(days=3), 3)]]).chance[0]
    assert 0.85 < chance < 0.9

    better = timed_learner(1, fast_pass=0.99, slow_pass=chance)
    assert fitting.earned_easy_ms(better) == 3_000  # the first threshold that parts them

    # Speed alone says nothing: fast and slow answers remembered alike earn nothing.
    alike = timed_learner(2, fast_pass=chance, slow_pass=chance)
    assert fitting.earned_easy_ms(alike) is None
    # Nor does a history too short to tell.
    assert fitting.earned_easy_ms(better[: 2 * fitting.EASY_MIN_ANSWERS - 2]) is None


def test_an_answer_the_learner_rated_is_not_timed_evidence() -> None:
    better = timed_learner(1, fast_pass=0.99, slow_pass=0.8)
    untimed = [[(when, rating, None) for when, rating, _ in card] for card in better]

    assert fitting.earned_easy_ms(untimed) is None


def cards_seen_twice(*, missed: int, learned: int, days: int = 1, passed: bool = True):
    """`missed` cards missed at first sight (then right ten minutes later) and `learned` cards
    right at first sight, each reviewed once more `days` later."""
    histories = []
    for index in range(missed + learned):
        first = START + timedelta(minutes=index)
        again = [(first, 1), (first + timedelta(minutes=10), 3)] if index < missed else []
        start = again[-1][0] if again else first
        history = again or [(first, 3)]
        histories.append([*history, (start + timedelta(days=days), 3 if passed else 1)])
    return histories


def test_the_raise_spreads_the_shortfall_of_reviews_no_schedule_can_place() -> None:
    w = fitting.weights(None)
    # A card missed at first sight leaves its steps weaker than a day: a day later its chance
    # is under 0.9. One right at first sight is placeable.
    weak = fitting.memory.short_term_stability(w, fitting.memory.initial(w, 1)[0], 3)
    assert fitting.memory.interval_for(w, weak, 0.9) < 1
    assert fitting.memory.interval_for(w, fitting.memory.initial(w, 3)[0], 0.9) >= 1
    chance = fitting.memory.recall_chance(w, weak, 1)
    assert 0.75 < chance < 0.85

    histories = cards_seen_twice(missed=60, learned=240)

    # 60 reviews short by 0.9 - chance, made up by the 240 others.
    expected = 60 * (0.9 - chance) / 240
    assert fitting.retention_raise(histories, None, 0.9) == round(expected, 4)
    # With every card placeable there is nothing to make up.
    assert fitting.retention_raise(cards_seen_twice(missed=0, learned=300), None, 0.9) == 0
    # At a desired 0.75 the same weak cards can be placed a day on (their chance is above it).
    assert fitting.retention_raise(histories, None, 0.75) == 0


def test_the_raise_is_bounded_and_needs_a_hundred_reviews() -> None:
    assert fitting.RAISE_MIN_REVIEWS == 100
    assert fitting.retention_raise(cards_seen_twice(missed=99, learned=0), None, 0.9) == 0
    assert fitting.retention_raise(cards_seen_twice(missed=100, learned=0), None, 0.9) == (
        fitting.RAISE_MAX
    )
    assert fitting.retention_raise(cards_seen_twice(missed=250, learned=50), None, 0.9) == (
        fitting.RAISE_MAX
    )


def test_the_raise_follows_the_most_recent_reviews() -> None:
    # The weak cards' reviews, all long ago, fall out of the window.
    old = cards_seen_twice(missed=100, learned=0)
    recent = [
        [(when + timedelta(days=30), rating) for when, rating in card]
        for card in cards_seen_twice(missed=0, learned=fitting.RAISE_WINDOW)
    ]

    assert fitting.retention_raise(old + recent, None, 0.9) == 0
    assert fitting.retention_raise(recent + old, None, 0.9) == 0  # order of cards aside
    assert fitting.retention_raise(old + recent[:-50], None, 0.9) > 0


def test_the_raise_goes_by_predictions_not_by_what_the_learner_recalled() -> None:
    remembered = cards_seen_twice(missed=60, learned=240, passed=True)
    forgotten = cards_seen_twice(missed=60, learned=240, passed=False)

    assert fitting.retention_raise(forgotten, None, 0.9) == fitting.retention_raise(
        remembered, None, 0.9
    )
