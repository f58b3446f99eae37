"""FSRS-6's model of one memory, as plain formulas over its 21 parameters.

The scheduler (`engine.scheduling`) steps cards through fsrs's `Scheduler`, which holds the
same formulas inside its state machine of learning steps. Here they stand alone, for what needs
the memory without the schedule: the chance of recall the parameters gave each review of a
history (to judge a fit on reviews it did not see), and simulated learners whose memories
follow the model with parameters of their own. Elapsed time is in days and may be fractional;
the scheduler and fsrs-rs count whole days, and callers that mean to agree with them pass
whole days.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

STABILITY_MIN = 0.001
DIFFICULTY_MIN, DIFFICULTY_MAX = 1.0, 10.0

Weights = Sequence[float]


def decay_and_factor(w: Weights) -> tuple[float, float]:
    """The forgetting curve's shape: R(t, S) = (1 + factor · t / S) ** decay, decay = −w[20],
    with factor making R(S, S) = 0.9."""
    decay = -float(w[20])
    return decay, 0.9 ** (1 / decay) - 1


def recall_chance(w: Weights, stability: float, elapsed_days: float) -> float:
    """The chance of recall `elapsed_days` after the last review (negative counts as 0)."""
    decay, factor = decay_and_factor(w)
    return float((1 + factor * max(elapsed_days, 0.0) / stability) ** decay)


def interval_for(w: Weights, stability: float, retention: float) -> float:
    """The days after which the chance of recall falls to `retention` (unrounded)."""
    decay, factor = decay_and_factor(w)
    return float(stability / factor * (retention ** (1 / decay) - 1))


def _clamp_difficulty(difficulty: float) -> float:
    return min(max(difficulty, DIFFICULTY_MIN), DIFFICULTY_MAX)


def initial(w: Weights, rating: int) -> tuple[float, float]:
    """(stability, difficulty) after a memory's first review, rated 1 (again) to 4 (easy)."""
    return max(float(w[rating - 1]), STABILITY_MIN), _clamp_difficulty(_difficulty_0(w, rating))


def _difficulty_0(w: Weights, rating: int) -> float:
    return float(w[4] - math.exp(w[5] * (rating - 1)) + 1)


def next_difficulty(w: Weights, difficulty: float, rating: int) -> float:
    """Difficulty after a review: moved by the rating, damped near 10, pulled towards Easy's
    starting difficulty by w[7]."""
    delta = -w[6] * (rating - 3)
    moved = difficulty + (10.0 - difficulty) * delta / 9.0
    return _clamp_difficulty(w[7] * _difficulty_0(w, 4) + (1 - w[7]) * moved)


def short_term_stability(w: Weights, stability: float, rating: int) -> float:
    """Stability after a review on the day of the previous one."""
    grow = math.exp(w[17] * (rating - 3 + w[18])) * stability ** -w[19]
    if rating >= 2:
        grow = max(grow, 1.0)
    return float(max(stability * grow, STABILITY_MIN))


def recall_stability(
    w: Weights, stability: float, difficulty: float, chance: float, rating: int
) -> float:
    """Stability after a remembered review (rating 2 to 4) at chance of recall `chance`."""
    hard = w[15] if rating == 2 else 1.0
    easy = w[16] if rating == 4 else 1.0
    grow = (
        math.exp(w[8])
        * (11 - difficulty)
        * stability ** -w[9]
        * (math.exp((1 - chance) * w[10]) - 1)
        * hard
        * easy
    )
    return float(max(stability * (1 + grow), STABILITY_MIN))


def forget_stability(w: Weights, stability: float, difficulty: float, chance: float) -> float:
    """Stability after a forgotten review (rating 1) at chance of recall `chance`."""
    long_term = (
        w[11]
        * difficulty ** -w[12]
        * ((stability + 1) ** w[13] - 1)
        * math.exp((1 - chance) * w[14])
    )
    short_term = stability / math.exp(w[17] * w[18])
    return float(max(min(long_term, short_term), STABILITY_MIN))


def after_review(
    w: Weights, stability: float, difficulty: float, elapsed_days: float, rating: int
) -> tuple[float, float]:
    """(stability, difficulty) after a review `elapsed_days` after the previous one: under a
    day, the short-term rule; otherwise by the chance of recall at that time."""
    if elapsed_days < 1:
        stability = short_term_stability(w, stability, rating)
    else:
        chance = recall_chance(w, stability, elapsed_days)
        stability = (
            forget_stability(w, stability, difficulty, chance)
            if rating == 1
            else recall_stability(w, stability, difficulty, chance, rating)
        )
    return stability, next_difficulty(w, difficulty, rating)
