"""Simulated learners driving the scheduler as the service does, to see whether it keeps its
promise: each question back just before it would be forgotten, at the learner's retention.

Each learner studies once a day at their usual hour (give or take), skips some days, and works
through the queue the service would give them: due cards first (overdue ones lowest chance of
recall first, then those due within the learn-ahead window), then new questions in course
order, within the daily limits, a lesson's other cards waiting once one of its cards has been
answered that day, leeches suspended. Each answer is right with the true chance of recall of
the learner's own memory, takes longer the weaker that memory is, and is rated by the rating
rule; the card is stepped by `engine.scheduling.review`, fuzz and all. Every night the refit
sweep runs as the service's does.

Memories (`--populations`):
- own: FSRS-shaped, each learner with parameters of their own and each question a difficulty
  of its own;
- default: exactly FSRS's default model, so the scheduler's model is the truth;
- power: not FSRS at all: exponential forgetting whose half-life grows with each success.
The memories follow fractional days; the scheduler counts whole days, as the service does.

Policies (`--policies`):
- before: the rules as they were: a right answer in under 8 s rated Easy; a fit kept when it
  beats the parameters in use on the history it was fitted to; cards left as they were after
  a fit; the sweep counting every answer; a card due only within the 20-minute learn-ahead;
  a lesson's other cards waiting for tomorrow once one is answered.
- now: the service's rules: Easy only under a threshold the learner's history has earned;
  fits judged on later reviews; each card re-derived after a kept fit; the sweep counting only
  the reviews a fit can use, and a check that found too few recorded; a card in the review
  phase due all through the learner's day it falls due in, unless it is a day apart (then
  due at its time); only a lesson's new questions waiting once one of its cards is answered;
  at each check, the reviews that can be placed aimed above the desired retention by what
  those that cannot fall short (`engine.fitting.retention_raise`).

Prints, per population and policy:
- the predictions in use (the chance of recall the scheduler gave each review a day or more
  after the one before): log loss, and RMSE over bins as srs-benchmark defines it (reviews
  grouped by elapsed days, review number and lapses, each group's mean prediction against its
  mean outcome, weighted by size);
- achieved retention (the share of those reviews passed) against the desired one, and the
  same over the reviews the scheduler could place at the desired retention (the interval that
  gives it, from the card's stability, was a day or more). A card that leaves its learning
  steps weaker than that (most often one missed at first sight) is due the next day, the
  soonest a once-a-day learner sees it again, when its chance of recall is already below the
  desired one: no schedule can place that review at the desired retention (under `now` the
  others are aimed above it to make up for these);
- answers (every one, learning steps included) per question remembered at the end (the sum of
  the true chances of recall on the last day);
- fits: sent to the fitter, kept, and, for kept fits, the log loss on every later review of
  the fitted parameters, the defaults and (own memories) the learner's true parameters, pooled,
  and how many learners' kept fits did worse than the defaults would have;
- under `now`, how far the checks aimed above the desired retention.

    .venv/bin/python -m bench.simulate [--learners 100] [--items 200] [--days 180] [--seed 1]
        [--populations own,default,power] [--policies before,now]
        [--desired 0.9] [--siblings all|new] [--due learn-ahead|day|any-day|6h] [--skips 0.2]
        [--hours 1.5] [--rule easy=fast ...] [--epochs 160] [--gamma 1.0]

`--desired` sets every learner's desired retention; the others change the rules or the
learners' habits, to see what each costs: `--siblings` and `--due` set those rules (as before
or as now, see the policies; `--due any-day`: a review card due all day whatever its interval,
`--due 6h`: within six hours) for every policy, `--rule` any other field of `Policy` (one
policy with one rule of the other), `--skips` is the most days a learner may skip (each draws
a share up to it), `--hours` how far a day's session strays from their usual hour (standard
deviation), `--epochs` and `--gamma` fsrs-rs's passes and its hold on the defaults.

Reproducible: the same arguments print the same figures (each learner draws from a generator
seeded by the seed, the population and their number). Learners run in parallel on every core:
on two cores, from under a minute (`before`) to about five (`own` and `power` under `now`, each
kept fit refreshed as reviews come) a population and policy at the defaults.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fsrs_rs_python as fsrs_rs  # noqa: E402
from fsrs.scheduler import (  # noqa: E402
    DEFAULT_PARAMETERS,
    LOWER_BOUNDS_PARAMETERS,
    UPPER_BOUNDS_PARAMETERS,
)

from engine import fitting, memory  # noqa: E402
from engine.scheduling import (  # noqa: E402
    CardState,
    Rating,
    SchedulerConfig,
    aimed_retention,
    rating_for,
    replay,
    retrievability,
    review,
    review_seeds,
)

DAY = 86_400.0
START = datetime(2026, 1, 5, 4, tzinfo=UTC)  # a learner's day begins at 04:00 (the default)
LEARN_AHEAD = 20 * 60.0  # reviews.queue.LEARN_AHEAD
SHORT_INTERVAL = 2 * DAY  # reviews.queue.SHORT_INTERVAL
LEECH_LAPSES = 8  # settings.LEECH_LAPSES
NEW_PER_DAY, REVIEWS_PER_DAY = 20, 200  # the defaults of a learner's limits
LESSON_SIZE = 10
REFIT_NEW_REVIEWS = 200  # settings.REFIT_NEW_REVIEWS
OLD_FAST_MS = 8_000  # the constant that used to rate a right answer Easy
DESIRED = {"retention": 0.9}  # the learners' desired retention
HABITS = {"skips": 0.2, "hours": 1.5}  # the most days a learner skips; their hour's spread
# The queue's rules for every policy, where set, to see what each costs (otherwise each
# policy's own): siblings "all" (as before: a lesson's other cards wait for tomorrow once one
# is answered) or "new" (as now: only its new questions wait); due "learn-ahead" (as before:
# due by now + 20 minutes) or "day" (as now: a card in the review phase is due all through the
# learner's day it falls due in, unless it is a day apart).
RULES: dict[str, object] = {}


# -- Memories --------------------------------------------------------------------------------


class Memory:
    """One learner's true memory of each question: its chance of recall after some
    (fractional) days, and how a review changes it."""

    parameters: tuple[float, ...] | None = None  # FSRS-shaped memories: the true parameters

    def first(self, item: int, recalled: bool) -> tuple[float, float]:
        raise NotImplementedError

    def chance(self, state: tuple[float, float], days: float) -> float:
        raise NotImplementedError

    def after(self, state: tuple[float, float], days: float, recalled: bool) -> tuple[float, float]:
        raise NotImplementedError


class FsrsMemory(Memory):
    """FSRS-6's model with these parameters; each question's starting difficulty moved by its
    own offset. A recalled review strengthens the memory as Good does, whatever its speed."""

    def __init__(self, parameters: Sequence[float], offsets: np.ndarray) -> None:
        self.parameters = tuple(parameters)
        self.offsets = offsets

    def first(self, item: int, recalled: bool) -> tuple[float, float]:
        stability, difficulty = memory.initial(self.parameters, 3 if recalled else 1)
        return stability, min(max(difficulty + float(self.offsets[item]), 1.0), 10.0)

    def chance(self, state: tuple[float, float], days: float) -> float:
        return memory.recall_chance(self.parameters, state[0], days)

    def after(self, state: tuple[float, float], days: float, recalled: bool) -> tuple[float, float]:
        return memory.after_review(self.parameters, state[0], state[1], days, 3 if recalled else 1)


class PowerMemory(Memory):
    """Not FSRS: R = 2 ** (−days / half-life). A success multiplies the half-life by more the
    lower the chance of recall was; a failure cuts it; a same-day review adds a little."""

    def __init__(self, rng: np.random.Generator, items: int) -> None:
        self.start = 2.5 * np.exp(rng.normal(0.0, 0.5, items))  # days, per question
        self.gain = float(np.exp(rng.normal(math.log(5.0), 0.3)))
        self.base = float(np.exp(rng.normal(math.log(1.0), 0.3)))

    def first(self, item: int, recalled: bool) -> tuple[float, float]:
        half_life = float(self.start[item]) * (1.0 if recalled else 0.4)
        return half_life, 0.0

    def chance(self, state: tuple[float, float], days: float) -> float:
        return 2.0 ** (-max(days, 0.0) / state[0])

    def after(self, state: tuple[float, float], days: float, recalled: bool) -> tuple[float, float]:
        half_life = state[0]
        if days < 1:
            return half_life * (1.15 if recalled else 0.8), 0.0
        if not recalled:
            return max(half_life * 0.5, 1.0), 0.0
        chance = self.chance(state, days)
        return half_life * (1 + self.base + self.gain * (1 - chance)), 0.0


def own_parameters(rng: np.random.Generator) -> tuple[float, ...]:
    """A learner's own FSRS parameters, spread around the defaults."""
    w = list(DEFAULT_PARAMETERS)
    w[0:4] = sorted(float(x * math.exp(rng.normal(0.0, 0.6))) for x in w[0:4])
    w[4] += float(rng.normal(0.0, 1.0))
    w[8] += float(rng.normal(0.0, 0.3))
    w[9] *= float(math.exp(rng.normal(0.0, 0.3)))
    w[10] += float(rng.normal(0.0, 0.3))
    w[11] *= float(math.exp(rng.normal(0.0, 0.3)))
    w[20] = float(rng.uniform(0.1, 0.6))
    return tuple(
        min(max(x, low), high)
        for x, low, high in zip(w, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)
    )


POPULATIONS: dict[str, Callable[[np.random.Generator, int], Memory]] = {
    "own": lambda rng, items: FsrsMemory(own_parameters(rng), rng.normal(0.0, 1.5, items)),
    "default": lambda rng, items: FsrsMemory(DEFAULT_PARAMETERS, np.zeros(items)),
    "power": lambda rng, items: PowerMemory(rng, items),
}


# -- Policies --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    name: str
    easy: str  # "fast": under OLD_FAST_MS; "earned": engine.fitting.earned_easy_ms
    fit: str  # "in-sample" (as before) or "judged" (engine.fitting.fit)
    rederive: bool  # re-derive every card after a kept fit
    sweep_counts: str  # "answers" (every review answer) or "usable" (scored reviews)
    record_short_checks: bool  # a check that found too few reviews waits for more
    due: str  # "learn-ahead": due by now + 20 minutes; "day", "any-day", "6h": see --due
    siblings: str  # once one of a lesson's cards is answered: "all" its cards wait, or "new"
    aim: bool  # aim the reviews that can be placed above the desired retention (fitting)


POLICIES = {
    "before": Policy(
        "before", "fast", "in-sample", False, "answers", False, "learn-ahead", "all", False
    ),
    "now": Policy("now", "earned", "judged", True, "usable", True, "day", "new", True),
}


def in_sample_fit(
    histories: Sequence[fitting.History], current: Sequence[float] | None
) -> tuple[tuple[float, ...], bool] | None:
    """The fit as it was: fsrs-rs on the whole history, kept when its log loss on that same
    history (fsrs-rs's own evaluation) is below the parameters in use."""
    items = []
    for history in histories:
        reviews: list[fsrs_rs.FSRSReview] = []
        previous = None
        for at, rating in sorted(history):
            days = 0 if previous is None else (at - previous).days
            reviews.append(fsrs_rs.FSRSReview(rating, days))
            if days > 0:
                items.append(fsrs_rs.FSRSItem(list(reviews)))
            previous = at
    if len(items) < fitting.MIN_REVIEWS:
        return None
    raw = fsrs_rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(items)
    fitted = tuple(
        min(max(round(w, 4), low), high)
        for w, low, high in zip(raw, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)
    )
    weights = list(fitting.weights(current))
    loss_current = fsrs_rs.FSRS(weights).evaluate(items).log_loss
    loss_fitted = fsrs_rs.FSRS(list(fitted)).evaluate(items).log_loss
    return fitted, loss_fitted < loss_current


# -- One learner -----------------------------------------------------------------------------


@dataclass
class Run:
    """What one learner's simulation gives back."""

    # One row per answer: seconds, item, whole days since the card's previous review (-1 for
    # a new card), the chance the scheduler gave (nan for new), the true chance, passed,
    # review number of the card (1 for its first), lapses before it, rating given.
    at: list[float] = field(default_factory=list)
    item: list[int] = field(default_factory=list)
    days: list[int] = field(default_factory=list)
    predicted: list[float] = field(default_factory=list)
    true: list[float] = field(default_factory=list)
    # Whether the scheduler could place the review at the desired retention: the interval that
    # gives it, from the stability before the review, is a day or more.
    placeable: list[bool] = field(default_factory=list)
    passed: list[bool] = field(default_factory=list)
    number: list[int] = field(default_factory=list)
    lapses: list[int] = field(default_factory=list)
    rating: list[int] = field(default_factory=list)
    remembered: float = 0.0  # the sum of true chances of recall at the end
    # (when, parameters) of each kept fit, or of the defaults coming back after one; fits
    # sent, fits that found too few reviews, returns to the defaults.
    kept: list[tuple[float, tuple[float, ...]]] = field(default_factory=list)
    fits: int = 0
    too_few: int = 0
    back_to_defaults: int = 0
    easy_ms: int | None = None
    raises: list[float] = field(default_factory=list)  # the retention raise set at each check
    histories: list[list[tuple[datetime, int]]] = field(default_factory=list)
    true_parameters: tuple[float, ...] | None = None


def _moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def simulate_learner(
    population: str, policy: Policy, number: int, *, seed: int, items: int, days: int
) -> Run:
    policy = replace(policy, **RULES)
    rng = np.random.default_rng([seed, list(POPULATIONS).index(population), number])
    truth = POPULATIONS[population](rng, items)
    behaviour = np.random.default_rng([seed, 99, number])  # the same habits under each policy
    hour = float(behaviour.uniform(7.0, 21.0))  # the learner's usual hour, local = UTC
    skips = float(behaviour.uniform(0.0, HABITS["skips"]))  # the share of days they miss
    spread = HABITS["hours"]  # how far (sd, hours) a day's session strays from the usual hour
    first_right = float(behaviour.uniform(0.4, 0.8))  # a new question right from the lesson
    answer_rng = np.random.default_rng([seed, 7, number])

    config = SchedulerConfig(desired_retention=DESIRED["retention"])
    start = START.timestamp()
    lesson = np.arange(items) // LESSON_SIZE
    new = np.ones(items, dtype=bool)
    suspended = np.zeros(items, dtype=bool)
    due = np.full(items, np.inf)
    reviewing = np.zeros(items, dtype=bool)  # in the review phase (not learning)
    last = np.full(items, np.nan)
    stability = np.full(items, np.nan)
    states: list[CardState | None] = [None] * items
    seeds = [int(x) for x in rng.integers(0, 2**62, items)]
    lapses = np.zeros(items, dtype=int)
    truth_state: list[tuple[float, float]] = [(0.0, 0.0)] * items
    truth_last = np.full(items, np.nan)
    histories: list[list[tuple[datetime, int]]] = [[] for _ in range(items)]
    timed: list[list[tuple[datetime, int, int | None]]] = [[] for _ in range(items)]
    run = Run(true_parameters=truth.parameters)
    checked_at = -math.inf
    easy_ms: int | None = None

    def usable_since(moment: float) -> tuple[int, int]:
        """(every review a fit can use, those after `moment`)."""
        total = since = 0
        for history in histories:
            previous = None
            for at, _ in history:
                if previous is not None and (at - previous).days >= 1:
                    total += 1
                    since += at.timestamp() > moment
                previous = at
        return total, since

    def answers_since(moment: float) -> tuple[int, int]:
        total = len(run.at)
        return total, sum(1 for at in run.at if at > moment)

    for day in range(days):
        day_start = start + day * DAY
        # The nightly refit sweep, as the service runs it.
        counted = (usable_since if policy.sweep_counts == "usable" else answers_since)(checked_at)
        if counted[0] >= fitting.MIN_REVIEWS and counted[1] >= REFIT_NEW_REVIEWS:
            run.fits += 1
            current = config.parameters
            kept: tuple[float, ...] | None = None
            if policy.fit == "judged":
                result = fitting.fit(histories, current=current)
                if result is not None and result.kept:
                    kept = result.parameters
                elif result is not None and result.back_to_defaults:
                    kept = tuple(DEFAULT_PARAMETERS)
                    run.back_to_defaults += 1
                found_too_few = result is None
            else:
                old = in_sample_fit(histories, current)
                if old is not None and old[1]:
                    kept = old[0]
                found_too_few = old is None
            run.too_few += found_too_few
            if not found_too_few or policy.record_short_checks:
                checked_at = day_start
            if kept is not None:
                config = replace(
                    config, parameters=None if kept == tuple(DEFAULT_PARAMETERS) else kept
                )
                run.kept.append((day_start, kept))
            if policy.aim:  # as reviews.fitting.scheduler_fit sets it, before re-deriving
                raised = fitting.retention_raise(histories, config.parameters, DESIRED["retention"])
                config = replace(
                    config, desired_retention=aimed_retention(DESIRED["retention"], raised)
                )
                run.raises.append(raised)
            if kept is not None and policy.rederive:
                for item in np.flatnonzero(~new):
                    state = replay(
                        histories[item],
                        start=histories[item][0][0],
                        config=config,
                        seed=seeds[item],
                    )
                    states[item] = state
                    due[item] = state.due.timestamp()
                    stability[item] = state.stability
                    reviewing[item] = state.state == "review"
            if policy.easy == "earned":
                easy_ms = fitting.earned_easy_ms(timed, config.parameters)
        if behaviour.random() < skips:
            continue
        now = day_start + (hour - 4.0 + float(behaviour.normal(0.0, 1.0)) * spread) * 3600.0
        now = min(max(now, day_start + 3600.0), day_start + 23 * 3600.0)
        reviews_today = new_today = 0
        while True:
            today = last >= day_start
            waiting = np.zeros(items // LESSON_SIZE + 1, dtype=bool)
            waiting[lesson[today]] = True
            open_ = ~waiting[lesson] | today | (policy.siblings == "new")
            pick = -1
            if reviews_today < REVIEWS_PER_DAY:
                rule = policy.due
                review_by = (
                    max(day_start + DAY - 1e-6, now + LEARN_AHEAD)
                    if rule in ("day", "any-day")
                    else now + float(rule[:-1]) * 3600.0
                    if rule.endswith("h")
                    else now + LEARN_AHEAD
                )
                by = np.where(reviewing, review_by, now + LEARN_AHEAD)
                if rule == "day":  # a card a day apart is due at its time (reviews.queue)
                    by = np.where(reviewing & (due - last < SHORT_INTERVAL), now, by)
                ready = np.flatnonzero(~new & ~suspended & open_ & (due <= by))
                if len(ready):
                    overdue = ready[due[ready] <= now]
                    if len(overdue):
                        elapsed = np.floor((now - last[overdue]) / DAY)
                        chance = retrievability(stability[overdue], elapsed, config.parameters)
                        pick = int(overdue[np.argmin(chance)])
                    else:
                        pick = int(ready[np.argmin(due[ready])])
            if pick < 0 and new_today < NEW_PER_DAY and reviews_today < REVIEWS_PER_DAY:
                fresh = np.flatnonzero(new & ~waiting[lesson])
                if len(fresh):
                    pick = int(fresh[0])
            if pick < 0:
                break
            moment = _moment(now)
            state = states[pick]
            if state is None:  # a new question, first seen
                recalled = bool(answer_rng.random() < first_right)
                true_chance = first_right
                truth_state[pick] = truth.first(pick, recalled)
                state = CardState.new(moment)
                new_today += 1
                number_before, lapses_before, whole = 0, 0, -1
            else:
                elapsed = (now - truth_last[pick]) / DAY
                true_chance = truth.chance(truth_state[pick], elapsed)
                recalled = bool(answer_rng.random() < true_chance)
                truth_state[pick] = truth.after(truth_state[pick], elapsed, recalled)
                number_before, lapses_before = state.reps, int(lapses[pick])
                whole = (moment - state.last_review).days if state.last_review else -1
            # Slower the weaker the memory; a wrong answer is rated Again whatever its time.
            took = int(
                1000 * math.exp(answer_rng.normal(math.log(8.2) + 1.5 * (1 - true_chance), 0.6))
            )
            status = "correct" if recalled else "incorrect"
            rating = rating_for(
                status=status,
                duration_ms=took,
                easy_ms=OLD_FAST_MS if policy.easy == "fast" else easy_ms,
            )
            outcome = review(
                state, rating, now=moment, config=config, rng=review_seeds(seeds[pick], state.reps)
            )
            after = outcome.state
            states[pick] = after
            new[pick] = False
            due[pick] = after.due.timestamp()
            reviewing[pick] = after.state == "review"
            last[pick] = now
            stability[pick] = after.stability
            lapses[pick] = after.lapses
            truth_last[pick] = now
            if after.lapses >= LEECH_LAPSES:
                suspended[pick] = True
            histories[pick].append((moment, int(rating)))
            timed[pick].append((moment, int(rating), took if recalled else None))
            reviews_today += 1
            run.at.append(now)
            run.item.append(pick)
            run.days.append(whole)
            run.predicted.append(
                math.nan if outcome.retrievability_before is None else outcome.retrievability_before
            )
            run.true.append(true_chance)
            run.placeable.append(
                state.stability is not None
                and memory.interval_for(
                    fitting.weights(config.parameters), state.stability, DESIRED["retention"]
                )
                >= 1
            )
            run.passed.append(recalled)
            run.number.append(number_before + 1)
            run.lapses.append(lapses_before)
            run.rating.append(int(rating))
            now += took / 1000 + 4.0
    end = start + days * DAY
    run.remembered = float(
        sum(
            truth.chance(truth_state[i], (end - truth_last[i]) / DAY)
            for i in range(items)
            if not new[i]
        )
    )
    run.easy_ms = easy_ms
    run.histories = histories
    return run


# -- Measures --------------------------------------------------------------------------------


def log_loss(passed: np.ndarray, chance: np.ndarray) -> float:
    p = np.clip(chance, 1e-9, 1 - 1e-9)
    return float(-np.mean(np.where(passed, np.log(p), np.log1p(-p))))


def rmse_bins(
    passed: np.ndarray, chance: np.ndarray, days: np.ndarray, number: np.ndarray, lapses: np.ndarray
) -> float:
    """srs-benchmark's RMSE (bins): reviews grouped by elapsed days, review number and
    lapses, each on a logarithmic scale; each group's mean prediction against its mean outcome,
    weighted by the group's size."""

    def binned(x: np.ndarray, scale: float, base: float, digits: int) -> np.ndarray:
        x = np.maximum(x.astype(np.float64), 1e-6)
        return np.round(scale * base ** np.floor(np.log(x) / np.log(base)), digits)

    keys = np.stack(
        [
            binned(days, 2.48, 3.62, 2),
            binned(number, 1.99, 1.89, 0),
            np.where(lapses > 0, binned(np.maximum(lapses, 1), 1.65, 1.73, 0), 0),
        ],
        axis=1,
    )
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    size = np.bincount(group)
    y = np.bincount(group, passed.astype(np.float64)) / size
    p = np.bincount(group, chance) / size
    return float(np.sqrt(np.sum(size * (y - p) ** 2) / np.sum(size)))


@dataclass
class Summary:
    log_loss: float
    rmse_bins: float
    retention: float
    placeable: float  # retention on the reviews the scheduler could place (Run.placeable)
    placeable_share: float
    answers_per_remembered: float
    remembered_share: float  # of the questions seen, the share remembered at the end
    easy_share: float
    fits: int
    too_few: int
    back_to_defaults: int
    kept: int
    learners_with_easy: int
    later: dict[str, float]  # pooled log loss on reviews after kept fits: fitted, default, true
    later_reviews: int
    worse: int
    learners_kept: int
    raises: list[float]  # every retention raise a check set


def summarise(runs: list[Run]) -> Summary:
    def joined(name: str) -> np.ndarray:
        return np.concatenate([np.asarray(getattr(r, name)) for r in runs])

    days, predicted, passed = joined("days"), joined("predicted"), joined("passed")
    placeable = joined("placeable").astype(bool)
    number, lapses, rating = joined("number"), joined("lapses"), joined("rating")
    scored = days >= 1
    later: dict[str, list[np.ndarray]] = {"fitted": [], "default": [], "true": []}
    worse = learners_kept = 0
    for run in runs:
        if not run.kept:
            continue
        learners_kept += 1
        # Each kept fit is judged on the reviews it predicted: from when it was kept until the
        # next one was (or the end); beside it, the defaults and the true parameters on the same.
        sets = {"fitted": None, "default": None, "true": run.true_parameters}
        losses: dict[str, list[np.ndarray]] = {name: [] for name in later}
        ends = [when for when, _ in run.kept[1:]] + [math.inf]
        for (when, parameters), end in zip(run.kept, ends, strict=True):
            sets["fitted"] = parameters
            for name, chosen in sets.items():
                if name == "true" and chosen is None:
                    continue
                reviews = fitting.scored(run.histories, chosen)
                within = (reviews.at >= when) & (reviews.at < end)
                part = fitting.Scored(
                    reviews.at[within],
                    reviews.passed[within],
                    reviews.chance[within],
                    reviews.stability[within],
                )
                losses[name].append(part.losses())
        fitted, default = np.concatenate(losses["fitted"]), np.concatenate(losses["default"])
        if not len(fitted):  # kept on the last night: nothing came after it
            learners_kept -= 1
            continue
        for name, parts in losses.items():
            if parts:
                later[name].append(np.concatenate(parts))
        if fitted.mean() > default.mean():
            worse += 1
    pooled = {name: float(np.concatenate(parts).mean()) for name, parts in later.items() if parts}
    return Summary(
        log_loss=log_loss(passed[scored], predicted[scored]),
        rmse_bins=rmse_bins(
            passed[scored], predicted[scored], days[scored], number[scored], lapses[scored]
        ),
        retention=float(passed[scored].mean()),
        placeable=float(passed[scored & placeable].mean()),
        placeable_share=float(np.mean(placeable[scored])),
        answers_per_remembered=len(days) / sum(r.remembered for r in runs),
        remembered_share=sum(r.remembered for r in runs) / int(np.sum(number == 1)),
        easy_share=float(np.mean(rating == int(Rating.EASY))),
        fits=sum(r.fits for r in runs),
        too_few=sum(r.too_few for r in runs),
        back_to_defaults=sum(r.back_to_defaults for r in runs),
        kept=sum(len(r.kept) - r.back_to_defaults for r in runs),
        learners_with_easy=sum(r.easy_ms is not None for r in runs),
        later=pooled,
        later_reviews=sum(len(p) for p in later["fitted"]),
        worse=worse,
        learners_kept=learners_kept,
        raises=[x for r in runs for x in r.raises],
    )


# -- Running ---------------------------------------------------------------------------------


def _one(arguments: tuple[str, str, int, int, int, int]) -> Run:
    population, policy, number, seed, items, days = arguments
    return simulate_learner(population, POLICIES[policy], number, seed=seed, items=items, days=days)


def simulate(
    population: str,
    policy: str,
    *,
    learners: int,
    items: int,
    days: int,
    seed: int,
    workers: int,
) -> list[Run]:
    jobs = [(population, policy, n, seed, items, days) for n in range(learners)]
    if workers <= 1:
        return [_one(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_one, jobs, chunksize=max(1, learners // (4 * workers))))


def report(population: str, policy: str, summary: Summary, seconds: float) -> None:
    s = summary
    print(
        f"{population:8s} {policy:7s} log loss {s.log_loss:.4f}  RMSE(bins) {s.rmse_bins:.4f}  "
        f"retention {s.retention:.4f} (desired {DESIRED['retention']:.3f})  answers/remembered "
        f"{s.answers_per_remembered:.2f} (remembered at the end {s.remembered_share:.3f})  "
        f"Easy {s.easy_share:.0%} of answers  ({seconds:.0f} s)"
    )
    print(
        f"{'':17s}retention where the scheduler could place the review at the desired one: "
        f"{s.placeable:.4f} ({s.placeable_share:.0%} of reviews)"
    )
    later = "  ".join(f"{name} {loss:.4f}" for name, loss in s.later.items())
    print(
        f"{'':17s}fits sent {s.fits}, kept {s.kept}, found too few {s.too_few}, back to the "
        f"defaults {s.back_to_defaults}; "
        f"learners with an earned Easy {s.learners_with_easy}"
    )
    if s.raises:
        raises = np.array(s.raises)
        print(
            f"{'':17s}aimed above the desired retention by {raises.mean():.4f} on average over "
            f"{len(raises)} checks (median {np.median(raises):.4f}, most {raises.max():.4f})"
        )
    if s.later:
        print(
            f"{'':17s}later reviews after kept fits ({s.later_reviews}): {later}; "
            f"kept fits worse than the defaults for {s.worse} of {s.learners_kept} learners"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=100)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--populations", default=",".join(POPULATIONS))
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--skips",
        type=float,
        default=HABITS["skips"],
        help="each learner skips a share of days drawn up to this",
    )
    parser.add_argument(
        "--hours",
        type=float,
        default=HABITS["hours"],
        help="how far a day's session strays from the usual hour (sd, hours)",
    )
    parser.add_argument(
        "--desired",
        type=float,
        default=DESIRED["retention"],
        help="the learners' desired retention",
    )
    parser.add_argument(
        "--siblings",
        choices=("all", "new"),
        default=None,
        help="which of a lesson's cards wait for tomorrow once one is answered (every policy)",
    )
    parser.add_argument(
        "--due",
        default=None,
        help="when a review card is due: learn-ahead (20 minutes), day, any-day or e.g. 6h",
    )
    parser.add_argument(
        "--rule", action="append", help="a field of Policy for every policy, e.g. easy=fast"
    )
    parser.add_argument("--epochs", type=int, default=fitting.EPOCHS, help="fsrs-rs's passes")
    parser.add_argument(
        "--gamma", type=float, default=fitting.GAMMA, help="fsrs-rs's hold on the defaults"
    )
    args = parser.parse_args()
    fitting.EPOCHS, fitting.GAMMA = args.epochs, args.gamma
    RULES.update({k: v for k, v in (("siblings", args.siblings), ("due", args.due)) if v})
    for assignment in args.rule or ():
        name, _, value = assignment.partition("=")
        RULES[name] = value == "yes" if value in ("yes", "no") else value
    DESIRED["retention"] = args.desired
    HABITS.update(skips=args.skips, hours=args.hours)
    print(
        f"{args.learners} learners x {args.items} questions x {args.days} days, seed "
        f"{args.seed}, {args.workers} workers"
    )
    for population in args.populations.split(","):
        for policy in args.policies.split(","):
            began = time.perf_counter()
            runs = simulate(
                population,
                policy,
                learners=args.learners,
                items=args.items,
                days=args.days,
                seed=args.seed,
                workers=args.workers,
            )
            report(population, policy, summarise(runs), time.perf_counter() - began)


if __name__ == "__main__":
    main()
