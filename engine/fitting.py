"""A learner's own FSRS parameters, fitted to their review history with fsrs-rs, and kept only
when they predict the learner's later reviews better than fsrs's defaults do.

A history is one list per card of (reviewed_at, rating 1..4). A review at least a whole day
after the card's previous one is *scored*: whether it was passed (rating above 1) is what the
parameters predict, from the card's reviews before it (`engine.memory`, days counted whole as
the scheduler and fsrs-rs count them). Same-day reviews move the memory but are not scored.

A fit judged on the history it was fitted to nearly always wins, by fitting noise. So the fit
is judged on the future, twice (`FOLDS`): made on the scored reviews before the median one and
judged on the next quarter, then made on those before the third quartile and judged on the
last quarter. It is kept only when, over both quarters, it predicts better than fsrs's
defaults by `MARGIN_Z` standard errors of the paired difference in log loss; then it is made
again on the whole history, and that is what is kept. The parameters in use are the defaults
or such a fit; an earlier fit cannot be judged on these quarters, having been made on part of
them, so each check judges against the defaults again, and a fit that still beats them
replaces the earlier one with one made on more of the history (a learner kept their first
fit for good otherwise, and it was made on the fewest reviews). When the fits now predict
worse than the defaults, the defaults come back (`FitResult.back_to_defaults`). Parameters
the history says little about (the starting stability of a first rating the learner seldom
gave, the Hard penalty and the Easy bonus of ratings seldom given) stay as they were.

Fast right answers earn Easy only where the history shows they are remembered better than the
same answers rated Good (`earned_easy_ms`).

Kept out of `engine/__init__` so that only the background worker loads fsrs-rs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter

import fsrs_rs_python as fsrs_rs
import numpy as np
from fsrs.scheduler import (
    DEFAULT_PARAMETERS,
    LOWER_BOUNDS_PARAMETERS,
    UPPER_BOUNDS_PARAMETERS,
)
from numpy.typing import NDArray

from engine import memory

History = Sequence[tuple[datetime, int]]
"""One card's reviews: when, and the rating (1 again, 2 hard, 3 good, 4 easy)."""

TimedHistory = Sequence[tuple[datetime, int, int | None]]
"""One card's reviews with, for an answer the machine graded right, how long it took in
milliseconds (None for any other: wrong, partial, rated by the learner, or not timed)."""

MIN_REVIEWS = 400
"""Scored reviews needed before fitting: with fewer, the fit follows noise more than the
learner, and fsrs-rs hands back its defaults for small sets anyway."""

FOLDS = (0.5, 0.75, 1.0)
"""Where the judging periods start and end, as shares of the scored reviews in time order:
each fit is made on the reviews before a period and judged on those in it."""

MARGIN_Z = 3.5
"""How many standard errors of the paired difference in log loss a fit must win by. A learner is
checked again and again as reviews come, so the bar is well above a single test's 2: in
`bench.simulate`, of 100 learners whose memory is exactly the defaults, one or two kept a fit at
2 and none or one at 2.5 (two seeds), each predicting the reviews after it worse; at 3, none
with two seeds of three and one with the third (some five checks each: at 3 a check's false keep
has a chance of about 1 in 700, about 0.7 expected in 100 learners). At 3.5 one learner in 400
kept one (four seeds, with the retention raise; none without it). The price is paid by learners
whose memory differs from the defaults only a little: with their own parameters 11 to 17
learners in 100 kept a fit within half a year (four seeds), against 15 to 19 at 3 (three seeds)."""

EPOCHS = 160
"""Passes fsrs-rs makes over the reviews. Its default, 5, leaves a learner's fit well short of
their true parameters on a few thousand reviews. In `bench.simulate` (learners with their own
parameters, one seed), kept fits came within 0.0044 of the true parameters' log loss on later
reviews with 80 passes and within 0.0028 with 160; a check of 2,300 reviews takes about half
a second."""

GAMMA = 1.0
"""How strongly fsrs-rs holds each parameter to its default while fitting (its own default)."""

SETTLED_BY = 20
"""Scored reviews that must follow a first rating, or a Hard or Easy rating, before the
parameter it sets is fitted rather than kept."""

_FIRST = (0, 1, 2, 3)  # the starting stabilities of Again, Hard, Good and Easy
_HARD_PENALTY, _EASY_BONUS = 15, 16

EASY_THRESHOLDS_MS = (2_000, 3_000, 4_000, 5_000, 6_000, 8_000, 10_000, 15_000)
"""The answer times tried as a learner's own threshold for Easy."""

EASY_MIN_ANSWERS = 100
"""Fast and slow right answers each needed, with a later scored review, to compare them."""

EASY_Z = 4.0
"""How many standard errors fast answers must be remembered better by. Eight thresholds are
tried at every check, so a learner is tested some forty times in half a year: at 3, one to
four in 100 simulated learners (`bench.simulate`, default memories, where speed says nothing
the chance of recall does not) earned a threshold on noise; at 4, none."""

RAISE_WINDOW = 500
"""The learner's most recent scored reviews that set how far their schedule aims above their
desired retention (`retention_raise`)."""

RAISE_MIN_REVIEWS = 100
"""Scored reviews needed before the schedule aims above the desired retention."""

RAISE_MAX = 0.05
"""The most the schedule aims above the desired retention (`User.retention_raise`'s check
constraint holds the same bound)."""


@dataclass(frozen=True)
class Scored:
    """The scored reviews of some histories, in time order: when (POSIX seconds), whether each
    was passed, the chance of recall the parameters gave it, and the card's stability (days)
    before it."""

    at: NDArray[np.float64]
    passed: NDArray[np.bool_]
    chance: NDArray[np.float64]
    stability: NDArray[np.float64]

    def losses(self) -> NDArray[np.float64]:
        """Each review's log loss."""
        p = np.clip(self.chance, 1e-9, 1 - 1e-9)
        return np.where(self.passed, -np.log(p), -np.log1p(-p))

    def log_loss(self) -> float:
        if not len(self.at):
            raise ValueError("no review comes a day or more after the card's previous one")
        return float(self.losses().mean())


@dataclass(frozen=True)
class FitResult:
    """A fit and how it was judged.

    `parameters` are the ones to keep when `kept` (fitted on the whole history); otherwise the
    last ones fitted on earlier reviews, which lost. The log losses are on the `judged_on`
    later scored reviews (`FOLDS`): of fsrs's defaults and of the fits made before them; `z`
    is the fits' lead in standard errors of the paired difference. `back_to_defaults`: the
    parameters in use are an earlier fit, and the fits now predict worse than the defaults.
    """

    parameters: tuple[float, ...]
    reviews: int
    judged_on: int
    log_loss_defaults: float
    log_loss_fitted: float
    z: float
    kept: bool
    back_to_defaults: bool = False


def weights(parameters: Sequence[float] | None) -> tuple[float, ...]:
    return tuple(DEFAULT_PARAMETERS if parameters is None else (float(w) for w in parameters))


def scored(histories: Sequence[History], parameters: Sequence[float] | None = None) -> Scored:
    """Every scored review of `histories` with the chance `parameters` (fsrs's defaults when
    None) gave it, in time order."""
    w = weights(parameters)
    at: list[float] = []
    passed: list[bool] = []
    chance: list[float] = []
    before: list[float] = []
    for history in histories:
        stability = difficulty = 0.0
        previous: datetime | None = None
        for when, rating in sorted(_checked(history), key=itemgetter(0)):
            if previous is None:
                stability, difficulty = memory.initial(w, rating)
            else:
                days = (when - previous).days
                if days >= 1:
                    at.append(when.timestamp())
                    passed.append(rating > 1)
                    chance.append(memory.recall_chance(w, stability, days))
                    before.append(stability)
                stability, difficulty = memory.after_review(w, stability, difficulty, days, rating)
            previous = when
    order = np.argsort(np.array(at, dtype=np.float64), kind="stable")
    return Scored(
        at=np.array(at, dtype=np.float64)[order],
        passed=np.array(passed, dtype=np.bool_)[order],
        chance=np.array(chance, dtype=np.float64)[order],
        stability=np.array(before, dtype=np.float64)[order],
    )


def scored_reviews(histories: Sequence[History]) -> int:
    """How many reviews a fit would learn from."""
    return sum(1 for _ in _items(histories))


def evaluate(histories: Sequence[History], parameters: Sequence[float] | None = None) -> float:
    """Mean log loss of `parameters` (fsrs's defaults when None) predicting `histories`' scored
    reviews; lower is better. `ValueError` when there is nothing to score."""
    return scored(histories, parameters).log_loss()


def fit(
    histories: Sequence[History],
    *,
    current: Sequence[float] | None = None,
    min_reviews: int = MIN_REVIEWS,
) -> FitResult | None:
    """Parameters fitted to `histories`, judged against fsrs's defaults on later scored
    reviews, which the judged fits did not see (`FOLDS`); `current` (the parameters in use,
    the defaults when None) holds what the history does not settle. None when there are fewer
    than `min_reviews` scored reviews, or nothing later to judge on."""
    items = sorted(_items(histories), key=itemgetter(0))
    if len(items) < max(min_reviews, 2):
        return None
    before = weights(current)
    by_defaults = scored(histories)
    at, judged_defaults = by_defaults.at, by_defaults.losses()
    cutoffs = [items[min(int(len(items) * share), len(items) - 1)][0] for share in FOLDS[:-1]]
    default_losses, trial_losses = [], []
    trial = before
    for start, end in zip(cutoffs, [*cutoffs[1:], math.inf], strict=True):
        earlier = [item for item in items if item[0] < start]
        trial = _fitted(earlier, before) if earlier else before
        within = (at >= start) & (at < end)
        default_losses.append(judged_defaults[within])
        trial_losses.append(scored(histories, trial).losses()[within])
    defaults = np.concatenate(default_losses)
    tri = np.concatenate(trial_losses)
    lead = defaults - tri
    if len(lead) < 2:  # reviews all at a few moments: nothing later to judge on
        return None
    mean = float(lead.mean())
    spread = float(lead.std(ddof=1)) / math.sqrt(len(lead))
    z = mean / spread if spread > 0 else (math.inf if mean > 0 else 0.0)
    kept = mean > 0 and z >= MARGIN_Z
    return FitResult(
        parameters=_fitted(items, before) if kept else trial,
        reviews=len(items),
        judged_on=len(lead),
        log_loss_defaults=float(defaults.mean()),
        log_loss_fitted=float(tri.mean()),
        z=z,
        kept=kept,
        back_to_defaults=not kept and mean < 0 and current is not None,
    )


def fitted(
    histories: Sequence[History], current: Sequence[float] | None = None
) -> tuple[float, ...]:
    """fsrs-rs's fit to all of `histories`, not judged: what `fit` keeps when the judged fits
    win. Parameters the history does not settle stay at `current` (fsrs's defaults when None)."""
    return _fitted(sorted(_items(histories), key=itemgetter(0)), weights(current))


@dataclass(frozen=True)
class _Item:
    reviews: tuple[tuple[int, int], ...]  # (rating, whole days since the previous review)


def _fitted(items: list[tuple[float, _Item]], current: tuple[float, ...]) -> tuple[float, ...]:
    """fsrs-rs's fit to the items (in time order, so its weighting of recent items means
    recent reviews), clipped to the scheduler's bounds, with the parameters these items do
    not settle left at `current`."""
    raw = fsrs_rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(
        [
            fsrs_rs.FSRSItem([fsrs_rs.FSRSReview(r, d) for r, d in item.reviews])
            for _, item in items
        ],
        training_config=fsrs_rs.TrainingConfig(num_epochs=EPOCHS, gamma=GAMMA),
    )
    # fsrs-rs works in float32: four decimals keep all it knows.
    fitted = [
        min(max(round(w, 4), low), high)
        for w, low, high in zip(raw, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)
    ]
    for index in _unsettled(item for _, item in items):
        fitted[index] = current[index]
    return tuple(fitted)


def _unsettled(items: Iterator[_Item]) -> set[int]:
    """The parameters fewer than `SETTLED_BY` of the items' scored reviews bear on: a first
    rating's starting stability (the scored review after it), the Hard penalty and the Easy
    bonus (a scored review after a Hard or Easy given a day or more after the one before)."""
    first = dict.fromkeys(_FIRST, 0)
    after = {_HARD_PENALTY: 0, _EASY_BONUS: 0}
    for item in items:
        reviews = item.reviews
        scored_before = [i for i, (_, days) in enumerate(reviews[:-1]) if days >= 1]
        if not scored_before:  # the card's first scored review: it tests the first rating
            first[reviews[0][0] - 1] += 1
        else:  # it tests the long-term rating before it
            rating = reviews[scored_before[-1]][0]
            if rating == 2:
                after[_HARD_PENALTY] += 1
            elif rating == 4:
                after[_EASY_BONUS] += 1
    counts = first | after
    return {index for index, count in counts.items() if count < SETTLED_BY}


def _items(histories: Sequence[History]) -> Iterator[tuple[float, _Item]]:
    """For each scored review, when it was and the card's reviews up to it (fsrs-rs's item)."""
    for history in histories:
        reviews: list[tuple[int, int]] = []
        previous: datetime | None = None
        for at, rating in sorted(_checked(history), key=itemgetter(0)):
            days = 0 if previous is None else (at - previous).days
            reviews.append((rating, days))
            # A same-day review moves the memory but isn't scored: fsrs-rs refuses it as an item.
            if days > 0:
                yield at.timestamp(), _Item(tuple(reviews))
            previous = at


def _checked(history: History) -> list[tuple[datetime, int]]:
    checked = []
    for at, rating in history:
        if at.tzinfo is None or at.utcoffset() is None:
            raise ValueError(f"review times must be timezone-aware, got {at.isoformat()}")
        if isinstance(rating, bool) or int(rating) != rating or not 1 <= rating <= 4:
            raise ValueError(f"a rating is 1, 2, 3 or 4, not {rating!r}")
        checked.append((at, int(rating)))
    return checked


def earned_easy_ms(
    histories: Sequence[TimedHistory], parameters: Sequence[float] | None = None
) -> int | None:
    """The answer time under which a right answer is rated Easy for this learner, or None
    (speed alone never makes Easy).

    Each right answer the machine graded is taken as Good (whatever speed made of it), and the
    card's next scored review is predicted from there: a learner whose fast answers are
    passed later more often than predicted, and more than their slow answers are, remembers
    them better than Good says. The threshold is the time in `EASY_THRESHOLDS_MS` whose fast
    and slow answers (at least `EASY_MIN_ANSWERS` of each) differ most, when that difference
    is at least `EASY_Z` standard errors.
    """
    w = weights(parameters)
    times: list[int] = []
    surprise: list[float] = []  # passed (1 or 0) less the chance predicted
    for history in histories:
        stability = difficulty = 0.0
        previous: datetime | None = None
        timed: int | None = None  # the time of the review before, if it is a timed right answer
        for when, rating, took in sorted(history, key=itemgetter(0)):
            rating = _checked([(when, rating)])[0][1]
            as_rated = 3 if took is not None else rating
            if previous is None:
                stability, difficulty = memory.initial(w, as_rated)
            else:
                days = (when - previous).days
                if days >= 1 and timed is not None:
                    chance = memory.recall_chance(w, stability, days)
                    times.append(timed)
                    surprise.append(float(rating > 1) - chance)
                    timed = None
                stability, difficulty = memory.after_review(
                    w, stability, difficulty, days, as_rated
                )
            timed = None if took is None else int(took)
            previous = when
    if len(times) < 2 * EASY_MIN_ANSWERS:
        return None
    took_ms = np.array(times)
    residual = np.array(surprise)
    best: tuple[float, int] | None = None
    for threshold in EASY_THRESHOLDS_MS:
        fast, slow = residual[took_ms < threshold], residual[took_ms >= threshold]
        if len(fast) < EASY_MIN_ANSWERS or len(slow) < EASY_MIN_ANSWERS:
            continue
        spread = math.sqrt(fast.var(ddof=1) / len(fast) + slow.var(ddof=1) / len(slow))
        if spread == 0:
            continue
        z = float(fast.mean() - slow.mean()) / spread
        if z >= EASY_Z and (best is None or z > best[0]):
            best = (z, threshold)
    return None if best is None else best[1]


def retention_raise(
    histories: Sequence[History], parameters: Sequence[float] | None, desired: float
) -> float:
    """How far above `desired` to aim the reviews the scheduler can place, so that the
    learner's reviews, all of them, are passed at the desired retention.

    Some reviews cannot be placed: a card weaker than a day (most often one missed at first
    sight) has an interval of a whole day, and by then its chance of recall is under the
    desired one. Over the learner's last `RAISE_WINDOW` scored reviews, their shortfall (the
    desired retention less the chance of each, as `parameters` predict it) is spread over the
    reviews that could be placed. Predictions, not outcomes: a review's own result does not
    count, only the chance the model gave it. At most `RAISE_MAX`; 0 with fewer than
    `RAISE_MIN_REVIEWS` scored reviews.
    """
    reviews = scored(histories, parameters)
    chance, stability = reviews.chance[-RAISE_WINDOW:], reviews.stability[-RAISE_WINDOW:]
    if len(chance) < RAISE_MIN_REVIEWS:
        return 0.0
    w = weights(parameters)
    # interval_for(w, s, desired) < 1 day, in one pass: it is linear in the stability.
    unplaceable = stability * memory.interval_for(w, 1.0, desired) < 1.0
    placeable = int(np.count_nonzero(~unplaceable))
    if placeable == 0:
        return RAISE_MAX
    shortfall = float(np.sum(desired - chance[unplaceable]))
    return round(min(max(shortfall / placeable, 0.0), RAISE_MAX), 4)
