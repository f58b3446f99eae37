"""The scheduler adapter: FSRS (the `fsrs` package) stepped as pure functions on plain values.

A card's memory is a `CardState` the service stores and hands back; `review` returns the next
state and leaves its input alone. fsrs draws interval fuzz from Python's module-level `random`;
here the fuzz comes from the generator or seed passed in, by fsrs's own formula, so a seed
repeats it. fsrs 6 keeps no counts, so reps and lapses are kept here. Every datetime is aware
and in UTC: naive ones are refused, aware ones in other zones are converted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import IntEnum
from functools import lru_cache
from operator import itemgetter
from typing import Any, Literal, get_args

import fsrs
import numpy as np
from fsrs.scheduler import DEFAULT_PARAMETERS, FUZZ_RANGES
from numpy.typing import ArrayLike, NDArray

from engine.grading import Status

Phase = Literal["new", "learning", "review", "relearning"]
PHASES: tuple[Phase, ...] = get_args(Phase)

_DAY = timedelta(days=1)
_TO_FSRS = {
    "learning": fsrs.State.Learning,
    "review": fsrs.State.Review,
    "relearning": fsrs.State.Relearning,
}
_FROM_FSRS: dict[fsrs.State, Phase] = {
    fsrs.State.Learning: "learning",
    fsrs.State.Review: "review",
    fsrs.State.Relearning: "relearning",
}


class Rating(IntEnum):
    """How well a review went, as FSRS counts it (the values are fsrs's)."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4

    @property
    def label(self) -> str:
        """The name the API uses: again, hard, good or easy."""
        return self.name.lower()

    @classmethod
    def from_label(cls, label: str) -> Rating:
        try:
            return cls[label.upper()]
        except KeyError:
            raise ValueError(f"a rating is again, hard, good or easy, not {label!r}") from None


def rating_for(
    *,
    status: Status | None,
    duration_ms: int | None = None,
    self_rating: str | None = None,
    easy_ms: int | None = None,
) -> Rating:
    """The rating for one answer.

    The learner's own rating wins when there is one: free text is always rated by the learner
    (its `status` is None), and on other kinds it overrides the grade, except that a wrong
    answer stays Again whatever the learner says. Otherwise wrong is Again, partial is Hard,
    and right is Good. Speed alone does not make Easy: a right answer is Easy only when it
    came in under `easy_ms`, the learner's own threshold, set where their history shows that
    their fast right answers are remembered better than Good predicts
    (`engine.fitting.earned_easy_ms`); None (no such evidence) never. An unknown duration is
    not fast.
    """
    if self_rating is not None and status != "incorrect":
        return Rating.from_label(self_rating)
    if duration_ms is not None and duration_ms < 0:
        raise ValueError("duration_ms can't be negative")
    match status:
        case "incorrect":
            return Rating.AGAIN
        case "partial":
            return Rating.HARD
        case "correct":
            fast = easy_ms is not None and duration_ms is not None and duration_ms < easy_ms
            return Rating.EASY if fast else Rating.GOOD
        case None:
            raise ValueError("an answer without a grade needs the learner's own rating")
        case _:
            raise ValueError(f"unknown status {status!r}")


def rating_from_key_points(covered: int, total: int) -> Rating:
    """The rating an interview answer's key points suggest: every one covered is Good, most of
    them (more than half) Hard, fewer Again. Easy is the learner's to claim, a step up."""
    if not 0 <= covered <= total:
        raise ValueError(f"{covered} key points covered out of {total}")
    if covered == total:
        return Rating.GOOD
    return Rating.HARD if 2 * covered > total else Rating.AGAIN


def ratings_near(suggested: Rating) -> tuple[Rating, ...]:
    """The ratings a learner may give in place of a suggested one: it, or one step either
    side."""
    return tuple(r for r in Rating if abs(int(r) - int(suggested)) <= 1)


def _utc(moment: datetime, name: str) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware (UTC), got naive {moment.isoformat()}")
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class CardState:
    """What the scheduler remembers about one card (one learner, one question).

    `step` is the (re)learning step, None outside learning; `stability` (days until recall
    falls to 90%) and `difficulty` (1 to 10) are None until the first review. `due` and
    `last_review` are UTC.
    """

    state: Phase
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    reps: int = 0
    lapses: int = 0

    def __post_init__(self) -> None:
        if self.state not in PHASES:
            raise ValueError(f"state is one of {', '.join(PHASES)}, not {self.state!r}")
        object.__setattr__(self, "due", _utc(self.due, "due"))
        if self.last_review is not None:
            object.__setattr__(self, "last_review", _utc(self.last_review, "last_review"))
        memory = (self.stability, self.difficulty, self.last_review)
        if self.state == "new":
            if self.step is not None or any(v is not None for v in memory) or self.reps:
                raise ValueError("a new card has no step, memory, last review or reps")
        elif any(v is None for v in memory):
            raise ValueError(f"a {self.state} card has stability, difficulty and a last review")
        elif (self.step is None) != (self.state == "review"):
            raise ValueError("a card has a step exactly when it is learning or relearning")
        if self.reps < 0 or self.lapses < 0 or (self.step is not None and self.step < 0):
            raise ValueError("step, reps and lapses can't be negative")

    @classmethod
    def new(cls, now: datetime) -> CardState:
        """A card never reviewed, due at `now`."""
        return cls("new", None, None, None, now, None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: datetimes as ISO 8601 with their UTC offset."""
        return {
            "state": self.state,
            "step": self.step,
            "stability": self.stability,
            "difficulty": self.difficulty,
            "due": self.due.isoformat(),
            "last_review": None if self.last_review is None else self.last_review.isoformat(),
            "reps": self.reps,
            "lapses": self.lapses,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CardState:
        last = data["last_review"]
        return cls(
            state=data["state"],
            step=None if data["step"] is None else int(data["step"]),
            stability=None if data["stability"] is None else float(data["stability"]),
            difficulty=None if data["difficulty"] is None else float(data["difficulty"]),
            due=datetime.fromisoformat(data["due"]),
            last_review=None if last is None else datetime.fromisoformat(last),
            reps=int(data["reps"]),
            lapses=int(data["lapses"]),
        )


RETENTION_MAX = 0.99
"""The highest retention a schedule aims at (and a learner may ask for)."""


def aimed_retention(desired: float, raised: float) -> float:
    """The retention the reviews that can be placed are aimed at: the desired one, raised by
    `engine.fitting.retention_raise` for those that cannot, at most `RETENTION_MAX`."""
    return round(min(desired + raised, RETENTION_MAX), 4)


@dataclass(frozen=True)
class SchedulerConfig:
    """One learner's scheduler settings; the defaults are fsrs's.

    `parameters` are the 21 FSRS-6 weights, None for fsrs's defaults. `maximum_interval` is in
    days. Fuzz spreads review intervals by a few days so cards learned together don't stay due
    together; with `enable_fuzzing` every `review` needs a generator or a seed.
    """

    desired_retention: float = 0.9
    parameters: tuple[float, ...] | None = None
    learning_steps: tuple[timedelta, ...] = (timedelta(minutes=1), timedelta(minutes=10))
    relearning_steps: tuple[timedelta, ...] = (timedelta(minutes=10),)
    maximum_interval: int = 36500
    enable_fuzzing: bool = True

    def __post_init__(self) -> None:
        # Lists are accepted and kept as tuples so a config can key the scheduler cache.
        if self.parameters is not None:
            object.__setattr__(self, "parameters", tuple(float(w) for w in self.parameters))
        object.__setattr__(self, "learning_steps", tuple(self.learning_steps))
        object.__setattr__(self, "relearning_steps", tuple(self.relearning_steps))
        if not 0.7 <= self.desired_retention <= RETENTION_MAX:
            raise ValueError("desired_retention must be from 0.7 to 0.99")
        if self.maximum_interval < 1:
            raise ValueError("maximum_interval must be at least 1 day")
        if any(s <= timedelta(0) for s in self.learning_steps + self.relearning_steps):
            raise ValueError("learning and relearning steps must be positive")
        _scheduler(self)  # fsrs checks the parameters' count and bounds

    @property
    def weights(self) -> tuple[float, ...]:
        """The parameters in use: the learner's own, or fsrs's defaults."""
        return DEFAULT_PARAMETERS if self.parameters is None else self.parameters


@lru_cache(maxsize=256)
def _scheduler(config: SchedulerConfig) -> fsrs.Scheduler:
    # Fuzz is applied by `_fuzzed_days` from the caller's generator, never by fsrs.
    return fsrs.Scheduler(
        parameters=config.weights,
        desired_retention=config.desired_retention,
        learning_steps=config.learning_steps,
        relearning_steps=config.relearning_steps,
        maximum_interval=config.maximum_interval,
        enable_fuzzing=False,
    )


@dataclass(frozen=True)
class ReviewOutcome:
    """The card after one review, how far away its next review is (in days), and the chance
    of recall the model gave it just before the review (None for a new card)."""

    state: CardState
    interval_days: float
    retrievability_before: float | None


def _to_fsrs(state: CardState) -> fsrs.Card:
    # A card id and due are always given: fsrs.Card reads the clock for either left out.
    if state.state == "new":
        return fsrs.Card(card_id=0, state=fsrs.State.Learning, step=0, due=state.due)
    return fsrs.Card(
        card_id=0,
        state=_TO_FSRS[state.state],
        step=state.step,
        stability=state.stability,
        difficulty=state.difficulty,
        due=state.due,
        last_review=state.last_review,
    )


def fuzz_range(interval_days: int, maximum_interval: int) -> tuple[int, int]:
    """fsrs's bounds for fuzzing a review interval of `interval_days` (±1 day, plus 15% of the
    days from 2.5 to 7, 10% of those from 7 to 20 and 5% of those past 20: 46 to 54 for 50).

    Intervals under 2.5 days are not fuzzed. As in fsrs, the draw rounds, so the fuzzed
    interval can come out one day past the upper bound (never past `maximum_interval`).
    """
    delta = 1.0
    for band in FUZZ_RANGES:
        delta += band["factor"] * max(min(float(interval_days), band["end"]) - band["start"], 0.0)
    high = min(round(interval_days + delta), maximum_interval)
    return min(max(2, round(interval_days - delta)), high), high


def _fuzzed_days(interval_days: int, maximum_interval: int, rng: np.random.Generator) -> int:
    # fsrs's `_get_fuzzed_interval`, step for step, with its `random()` drawn from `rng`.
    if interval_days < 2.5:
        return interval_days
    low, high = fuzz_range(interval_days, maximum_interval)
    drawn = float(rng.random()) * (high - low + 1) + low
    return min(round(drawn), maximum_interval)


def review(
    state: CardState,
    rating: Rating,
    *,
    now: datetime,
    config: SchedulerConfig,
    rng: np.random.Generator | int | Sequence[int] | None = None,
) -> ReviewOutcome:
    """The card after being rated `rating` at `now`; `state` itself is left as it was.

    With fuzzing off this is exactly `fsrs.Scheduler.review_card`. With it on, `rng` (a numpy
    Generator, or a seed or seed sequence for one, made only when a draw is needed) supplies
    fsrs's single fuzz draw, so the same seed gives the same due. A review earlier than the
    card's last one is refused: replay the log instead.
    """
    now = _utc(now, "now")
    rating = Rating(rating)
    if state.last_review is not None and now < state.last_review:
        raise ValueError("a review can't come before the card's last review; use replay()")
    if config.enable_fuzzing and rng is None:
        raise ValueError("fuzzing needs a numpy Generator or a seed")
    scheduler = _scheduler(config)
    card = _to_fsrs(state)
    before = None if state.state == "new" else scheduler.get_card_retrievability(card, now)
    card, _ = scheduler.review_card(card, fsrs.Rating(rating), now)
    if config.enable_fuzzing and card.state == fsrs.State.Review:
        generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        days = _fuzzed_days((card.due - now).days, config.maximum_interval, generator)
        card.due = now + timedelta(days=days)
    lapsed = state.state == "review" and rating == Rating.AGAIN
    after = CardState(
        state=_FROM_FSRS[card.state],
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
        reps=state.reps + 1,
        lapses=state.lapses + int(lapsed),
    )
    return ReviewOutcome(
        state=after,
        interval_days=(after.due - now) / _DAY,
        retrievability_before=None if before is None else float(before),
    )


def review_rng(seed: int, index: int) -> np.random.Generator:
    """The generator for a card's review number `index` (0 for its first), from the card's seed.

    Live reviews that pass `review_rng(seed, state.reps)`, or its seeds `review_seeds(seed,
    state.reps)`, fuzz exactly as `replay` does.
    """
    return np.random.default_rng(review_seeds(seed, index))


def review_seeds(seed: int, index: int) -> list[int]:
    """What `review_rng` is made from: `review(rng=...)` makes it only when it draws."""
    return [seed, index]


def replay(
    reviews: Sequence[tuple[datetime, Rating]],
    *,
    start: datetime,
    config: SchedulerConfig,
    seed: int | None = None,
) -> CardState:
    """A card rebuilt from its review log, as new at `start`, reviews applied in time order.

    For a review that arrives late (an offline answer older than the card's last review).
    Reviews at the same instant keep the order they are given in.
    Review number i draws its fuzz from `review_rng(seed, i)`; `seed` is needed when fuzzing.
    """
    state = CardState.new(start)
    timed = sorted(
        ((_utc(at, "a review's time"), Rating(r)) for at, r in reviews), key=itemgetter(0)
    )
    for index, (at, rating) in enumerate(timed):
        rng = None if seed is None else review_seeds(seed, index)
        state = review(state, rating, now=at, config=config, rng=rng).state
    return state


def forgetting_curve(parameters: Sequence[float] | None = None) -> tuple[float, float]:
    """FSRS-6's (decay, factor), for R(t, S) = (1 + factor · t / S) ** decay: decay = −w[20],
    and factor makes R(S, S) = 0.9. For computing the same curve elsewhere (in SQL, say)."""
    weights = DEFAULT_PARAMETERS if parameters is None else parameters
    decay = -float(weights[20])
    return decay, 0.9 ** (1 / decay) - 1


def retrievability(
    stability: ArrayLike,
    elapsed_days: ArrayLike,
    parameters: Sequence[float] | None = None,
) -> NDArray[np.float64]:
    """The chance of recall for many cards at once, by FSRS-6's forgetting curve.

    R(t, S) = (1 + factor · t / S) ** decay, with decay = −w[20] and factor chosen so that
    R(S, S) = 0.9. Arrays broadcast; negative elapsed days count as 0. A card with no
    stability (NaN: never reviewed) or no elapsed time (NaN) gets 0, as fsrs gives it.
    """
    decay, factor = forgetting_curve(parameters)
    s, t = np.broadcast_arrays(
        np.asarray(stability, dtype=np.float64), np.asarray(elapsed_days, dtype=np.float64)
    )
    known = np.isfinite(s) & (s > 0) & np.isfinite(t)
    out = np.zeros(s.shape, dtype=np.float64)
    out[known] = (1 + factor * np.maximum(t[known], 0.0) / s[known]) ** decay
    return out


def retrievability_at(
    states: Sequence[CardState], *, now: datetime, parameters: Sequence[float] | None = None
) -> NDArray[np.float64]:
    """Each card's chance of recall at `now`, counting whole days since its last review as
    fsrs does (so each value equals `fsrs.Scheduler.get_card_retrievability`); 0 for new."""
    now = _utc(now, "now")
    stability = np.array(
        [math.nan if s.stability is None else s.stability for s in states], dtype=np.float64
    )
    elapsed = np.array(
        [math.nan if s.last_review is None else (now - s.last_review).days for s in states],
        dtype=np.float64,
    )
    return retrievability(stability, elapsed, parameters)
