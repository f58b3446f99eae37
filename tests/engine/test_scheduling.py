"""The scheduler adapter: fsrs's own results, on plain values, with fuzz from a seed."""

import json
import random
from datetime import UTC, datetime, timedelta, timezone
from unittest import mock

import fsrs
import numpy as np
import pytest
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.scheduling import (
    CardState,
    Rating,
    SchedulerConfig,
    fuzz_range,
    rating_for,
    replay,
    retrievability,
    retrievability_at,
    review,
    review_rng,
    review_seeds,
)

PROPERTY = settings(max_examples=150, deadline=None)
START = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
PLAIN = SchedulerConfig(enable_fuzzing=False)
FUZZED = SchedulerConfig()
PHASE_OF = {
    fsrs.State.Learning: "learning",
    fsrs.State.Review: "review",
    fsrs.State.Relearning: "relearning",
}

parameters = st.tuples(
    *(
        st.floats(low, high, allow_nan=False)
        for low, high in zip(LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)
    )
)
steps = st.lists(st.integers(1, 3 * 24 * 60).map(lambda m: timedelta(minutes=m)), max_size=3)
configs = st.builds(
    SchedulerConfig,
    desired_retention=st.floats(0.7, 0.99),
    parameters=st.none() | parameters,
    learning_steps=steps.map(tuple),
    relearning_steps=steps.map(tuple),
    maximum_interval=st.sampled_from([3, 30, 365, 36500]),
    enable_fuzzing=st.just(False),
)
gaps = st.one_of(
    st.integers(0, 12 * 3600).map(lambda s: timedelta(seconds=s)),
    st.floats(0, 400).map(lambda d: timedelta(days=d)),
)
ratings = st.sampled_from(list(Rating))
sessions = st.lists(st.tuples(ratings, gaps), min_size=1, max_size=25)
apart = st.lists(st.tuples(ratings, gaps.filter(bool)), min_size=1, max_size=25)
starts = st.datetimes(datetime(2000, 1, 1), datetime(2090, 1, 1), timezones=st.just(UTC))


def studied(config: SchedulerConfig, start: datetime, session: list[tuple[Rating, timedelta]]):
    """Every state a card passes through, reviewed after each gap."""
    state, now, states = CardState.new(start), start, []
    for rating, gap in session:
        now += gap
        state = review(state, rating, now=now, config=config).state
        states.append(state)
    return states


@st.composite
def card_states(draw: st.DrawFn) -> CardState:
    states = studied(PLAIN, draw(starts), draw(sessions))
    return draw(st.sampled_from([CardState.new(START), *states]))


def fsrs_scheduler(config: SchedulerConfig, *, fuzz: bool = False) -> fsrs.Scheduler:
    return fsrs.Scheduler(
        parameters=config.weights,
        desired_retention=config.desired_retention,
        learning_steps=config.learning_steps,
        relearning_steps=config.relearning_steps,
        maximum_interval=config.maximum_interval,
        enable_fuzzing=fuzz,
    )


def review_card_state() -> CardState:
    """A card in review whose next Good interval is a few weeks: long enough to fuzz."""
    state, now = CardState.new(START), START
    for _ in range(4):
        state = review(state, Rating.GOOD, now=now, config=PLAIN).state
        now = state.due
    assert state.state == "review"
    return state


@PROPERTY
@given(config=configs, start=starts, session=sessions)
def test_without_fuzz_every_review_is_exactly_what_fsrs_computes(
    config: SchedulerConfig, start: datetime, session: list[tuple[Rating, timedelta]]
) -> None:
    scheduler = fsrs_scheduler(config)
    card = fsrs.Card(card_id=1, due=start)
    state, now = CardState.new(start), start

    for rating, gap in session:
        now += gap
        expected_r = scheduler.get_card_retrievability(card, now) if card.last_review else None
        outcome = review(state, rating, now=now, config=config)
        card, _ = scheduler.review_card(card, fsrs.Rating(rating), now)
        state = outcome.state

        assert state.state == PHASE_OF[card.state]
        assert state.step == card.step
        assert state.stability == card.stability
        assert state.difficulty == card.difficulty
        assert state.due == card.due
        assert state.last_review == card.last_review == now
        assert outcome.interval_days == (card.due - now) / timedelta(days=1)
        assert outcome.retrievability_before == expected_r


def test_a_review_leaves_the_card_it_was_given_alone() -> None:
    before = review_card_state()
    copy = CardState.from_dict(before.to_dict())

    after = review(before, Rating.AGAIN, now=before.due, config=PLAIN).state

    assert before == copy
    assert after != before


def test_a_learner_answering_right_every_time_sees_growing_intervals() -> None:
    state, now, intervals = CardState.new(START), START, []
    for _ in range(12):
        outcome = review(state, Rating.GOOD, now=now, config=PLAIN)
        intervals.append(outcome.interval_days)
        state, now = outcome.state, outcome.state.due

    assert intervals == sorted(set(intervals))
    assert intervals[0] == pytest.approx(10 / (24 * 60))
    assert intervals[-1] > 365
    assert (state.reps, state.lapses) == (12, 0)


def test_a_wrong_answer_on_a_review_card_sends_it_to_relearning_and_counts_a_lapse() -> None:
    card = review_card_state()

    outcome = review(card, Rating.AGAIN, now=card.due, config=PLAIN)

    assert outcome.state.state == "relearning"
    assert outcome.state.step == 0
    assert outcome.interval_days == pytest.approx(10 / (24 * 60))
    assert outcome.state.lapses == card.lapses + 1
    assert outcome.state.reps == card.reps + 1
    assert outcome.retrievability_before == pytest.approx(0.9, abs=0.02)


def test_a_wrong_answer_while_learning_is_not_a_lapse() -> None:
    outcome = review(CardState.new(START), Rating.AGAIN, now=START, config=PLAIN)

    assert outcome.state.state == "learning"
    assert outcome.state.lapses == 0
    assert outcome.retrievability_before is None


def test_fuzz_repeats_with_the_same_seed_and_varies_across_seeds() -> None:
    card = review_card_state()

    def due(rng: np.random.Generator | int) -> datetime:
        return review(card, Rating.GOOD, now=card.due, config=FUZZED, rng=rng).state.due

    assert due(7) == due(7) == due(np.random.default_rng(7))
    assert len({due(seed) for seed in range(50)}) > 3


def test_fuzz_spans_fsrs_range_around_the_plain_interval() -> None:
    card = review_card_state()
    plain = review(card, Rating.GOOD, now=card.due, config=PLAIN).interval_days
    low, high = fuzz_range(int(plain), FUZZED.maximum_interval)

    fuzzed = {
        review(card, Rating.GOOD, now=card.due, config=FUZZED, rng=seed).interval_days
        for seed in range(2000)
    }

    assert plain >= 20
    assert low < plain < high
    # fsrs rounds its draw, so the longest fuzzed interval is one day past the range's top.
    assert fuzzed == set(range(low, high + 2))


@PROPERTY
@given(start=starts, session=sessions, seed=st.integers(0, 2**32))
def test_fuzz_is_fsrs_fuzz_with_its_random_draw_taken_from_the_seed(
    start: datetime, session: list[tuple[Rating, timedelta]], seed: int
) -> None:
    scheduler = fsrs_scheduler(FUZZED, fuzz=True)
    card = fsrs.Card(card_id=1, due=start)
    state, now = CardState.new(start), start

    for index, (rating, gap) in enumerate(session):
        now += gap
        draw = review_rng(seed, index).random()
        with mock.patch("fsrs.scheduler.random", return_value=draw):
            card, _ = scheduler.review_card(card, fsrs.Rating(rating), now)
        # The seeds alone, as a live review passes them: the generator is made for the draw.
        state = review(state, rating, now=now, config=FUZZED, rng=review_seeds(seed, index)).state

        assert state.due == card.due
        assert state.stability == card.stability


def test_fuzzing_without_a_generator_or_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="seed"):
        review(CardState.new(START), Rating.GOOD, now=START, config=FUZZED)


@PROPERTY
@given(state=card_states())
def test_a_card_state_survives_json(state: CardState) -> None:
    assert CardState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


@pytest.mark.parametrize(
    ("status", "duration_ms", "self_rating", "expected"),
    [
        ("incorrect", 2_000, None, Rating.AGAIN),
        ("partial", 2_000, None, Rating.HARD),
        ("correct", 20_000, None, Rating.GOOD),
        ("correct", None, None, Rating.GOOD),
        ("correct", 7_999, None, Rating.GOOD),  # speed alone never makes Easy
        ("correct", 0, None, Rating.GOOD),
        ("correct", 0, "easy", Rating.EASY),  # the learner may always rate themselves
        (None, None, "hard", Rating.HARD),
        (None, 1_000, "again", Rating.AGAIN),
        ("incorrect", None, "good", Rating.AGAIN),  # a rating never lifts a wrong answer
        ("incorrect", 1_000, "easy", Rating.AGAIN),
        ("incorrect", None, "again", Rating.AGAIN),
        ("correct", 1_000, "hard", Rating.HARD),
        ("partial", None, "easy", Rating.EASY),
    ],
)
def test_rating_for_an_answer(
    status: str | None, duration_ms: int | None, self_rating: str | None, expected: Rating
) -> None:
    rating = rating_for(status=status, duration_ms=duration_ms, self_rating=self_rating)  # type: ignore[arg-type]

    assert rating == expected


def test_a_right_answer_is_easy_only_under_the_learners_own_threshold() -> None:
    def rated(duration_ms: int | None, status: str = "correct") -> Rating:
        return rating_for(status=status, duration_ms=duration_ms, easy_ms=5_000)  # type: ignore[arg-type]

    assert rated(4_999) == Rating.EASY
    assert rated(5_000) == Rating.GOOD
    assert rated(None) == Rating.GOOD
    assert rated(1_000, "partial") == Rating.HARD
    assert rated(1_000, "incorrect") == Rating.AGAIN


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"status": None}, "learner's own rating"),
        ({"status": "skipped"}, "unknown status"),
        ({"status": "correct", "self_rating": "perfect"}, "again, hard, good or easy"),
        ({"status": "correct", "duration_ms": -1}, "negative"),
    ],
)
def test_rating_for_what_it_cant_rate_says_why(arguments: dict[str, object], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        rating_for(**arguments)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(states=st.lists(card_states(), min_size=1, max_size=8), later=gaps)
def test_retrievability_for_many_cards_is_fsrs_for_each(
    states: list[CardState], later: timedelta
) -> None:
    now = max(s.last_review or s.due for s in states) + later
    scheduler = fsrs.Scheduler()
    expected = [
        scheduler.get_card_retrievability(
            fsrs.Card(card_id=1, stability=s.stability, last_review=s.last_review, due=s.due),
            now,
        )
        for s in states
    ]

    assert retrievability_at(states, now=now).tolist() == pytest.approx(expected, rel=1e-12)


def test_retrievability_is_0_9_after_one_stability_and_0_without_one() -> None:
    r = retrievability([10.0, 10.0, np.nan, 5.0, 2.0], [10.0, 0.0, 3.0, -4.0, np.nan])

    assert r.tolist() == pytest.approx([0.9, 1.0, 0.0, 1.0, 0.0])


def test_retrievability_broadcasts_and_follows_the_parameters_decay() -> None:
    stability = np.array([[1.0], [30.0]])
    days = np.array([0.0, 1.0, 30.0, 365.0])
    fast_decay = [*fsrs.scheduler.DEFAULT_PARAMETERS[:20], 0.8]

    default = retrievability(stability, days)
    steep = retrievability(stability, days, fast_decay)

    assert default.shape == steep.shape == (2, 4)
    assert default[1, 2] == pytest.approx(0.9)
    assert steep[1, 2] == pytest.approx(0.9)
    assert np.all(np.diff(default, axis=1) < 0)
    assert steep[0, 3] < default[0, 3]


@PROPERTY
@given(start=starts, session=apart, seed=st.integers(0, 2**32), order=st.randoms())
def test_replay_equals_reviewing_one_by_one_in_time_order(
    start: datetime, session: list[tuple[Rating, timedelta]], seed: int, order: random.Random
) -> None:
    state, now, log = CardState.new(start), start, []
    for index, (rating, gap) in enumerate(session):
        now += gap
        state = review(state, rating, now=now, config=FUZZED, rng=review_rng(seed, index)).state
        log.append((now, rating))
    shuffled = order.sample(log, len(log))

    assert replay(shuffled, start=start, config=FUZZED, seed=seed) == state


def test_a_review_older_than_the_last_one_is_refused() -> None:
    card = review_card_state()
    assert card.last_review is not None

    with pytest.raises(ValueError, match="replay"):
        review(card, Rating.GOOD, now=card.last_review - timedelta(hours=1), config=PLAIN)


def test_an_aware_time_in_another_zone_is_the_same_instant_in_utc() -> None:
    paris = timezone(timedelta(hours=2))

    there = review(CardState.new(START), Rating.GOOD, now=START.astimezone(paris), config=PLAIN)
    here = review(CardState.new(START), Rating.GOOD, now=START, config=PLAIN)

    assert there == here
    assert there.state.due.tzinfo is UTC


NAIVE = datetime(2025, 3, 1, 9, 30)


@pytest.mark.parametrize(
    "call",
    [
        lambda: CardState.new(NAIVE),
        lambda: review(CardState.new(START), Rating.GOOD, now=NAIVE, config=PLAIN),
        lambda: CardState.from_dict({**CardState.new(START).to_dict(), "due": NAIVE.isoformat()}),
        lambda: replay([(NAIVE, Rating.GOOD)], start=START, config=PLAIN),
        lambda: retrievability_at([CardState.new(START)], now=NAIVE),
    ],
)
def test_naive_datetimes_are_refused(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="timezone-aware"):
        call()


@pytest.mark.parametrize(
    ("settings_", "reason"),
    [
        ({"desired_retention": 0.5}, "desired_retention"),
        ({"desired_retention": 0.995}, "desired_retention"),
        ({"parameters": (0.2,) * 20}, "Expected 21 parameters"),
        ({"parameters": (0.0,) * 21}, "out of bounds"),
        ({"maximum_interval": 0}, "maximum_interval"),
        ({"learning_steps": (timedelta(0),)}, "positive"),
    ],
)
def test_unusable_scheduler_settings_are_refused(settings_: dict[str, object], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        SchedulerConfig(**settings_)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"state": "new"}, "a new card has no"),
        ({"step": 1}, "a card has a step exactly"),
        ({"state": "suspended"}, "state is one of"),
        ({"lapses": -1}, "can't be negative"),
    ],
)
def test_inconsistent_card_states_are_refused(change: dict[str, object], reason: str) -> None:
    card = review_card_state().to_dict()

    with pytest.raises(ValueError, match=reason):
        CardState.from_dict({**card, **change})
