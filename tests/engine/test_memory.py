"""FSRS-6's formulas on their own (`engine.memory`) agree with fsrs's Scheduler, which the
service steps cards with: the same stability, difficulty and chance of recall after any run
of ratings and whole-day gaps, for the defaults and for a learner's own parameters."""

from datetime import UTC, datetime, timedelta

import fsrs
import numpy as np
import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS

from engine import memory

OWN = (0.1, 0.6, 1.2, 5.0, *DEFAULT_PARAMETERS[4:8], 1.2, *DEFAULT_PARAMETERS[9:20], 0.4)
START = datetime(2026, 3, 2, 9, tzinfo=UTC)


@pytest.mark.parametrize("w", [DEFAULT_PARAMETERS, OWN], ids=["defaults", "own"])
@pytest.mark.parametrize("seed", range(5))
def test_the_formulas_step_a_memory_as_fsrs_does(w, seed) -> None:
    rng = np.random.default_rng(seed)
    # No learning steps: every review goes straight through the memory model.
    scheduler = fsrs.Scheduler(
        parameters=w, learning_steps=(), relearning_steps=(), enable_fuzzing=False
    )
    card, now = fsrs.Card(due=START), START
    stability = difficulty = 0.0
    for index in range(12):
        rating = int(rng.choice(4, p=[0.2, 0.1, 0.6, 0.1])) + 1
        if index == 0:
            stability, difficulty = memory.initial(w, rating)
        else:
            days = (now - card.last_review).days
            assert memory.recall_chance(w, stability, days) == pytest.approx(
                scheduler.get_card_retrievability(card, now), rel=1e-12
            )
            stability, difficulty = memory.after_review(w, stability, difficulty, days, rating)
        card, _ = scheduler.review_card(card, fsrs.Rating(rating), now)
        assert stability == pytest.approx(card.stability, rel=1e-12)
        assert difficulty == pytest.approx(card.difficulty, rel=1e-12)
        # Next: the same day now and then, else after some whole days and a few hours.
        if rng.random() < 0.2:
            now += timedelta(hours=2)
        else:
            now += timedelta(days=int(rng.integers(1, 40)), hours=float(rng.uniform(0, 5)))


@pytest.mark.parametrize("w", [DEFAULT_PARAMETERS, OWN], ids=["defaults", "own"])
def test_the_interval_is_where_recall_falls_to_the_retention(w) -> None:
    for stability in (0.3, 2.0, 45.0):
        for retention in (0.8, 0.9, 0.95):
            days = memory.interval_for(w, stability, retention)
            assert memory.recall_chance(w, stability, days) == pytest.approx(retention)
    # Stability is the time to 90%, for any curve.
    assert memory.interval_for(w, 7.0, 0.9) == pytest.approx(7.0)


def test_recall_starts_certain_and_fades() -> None:
    w = DEFAULT_PARAMETERS
    chances = [memory.recall_chance(w, 3.0, days) for days in (0, 1, 3, 10, 100)]
    assert chances[0] == 1.0
    assert chances[2] == pytest.approx(0.9)
    assert chances == sorted(chances, reverse=True)
    assert memory.recall_chance(w, 3.0, -2) == 1.0
