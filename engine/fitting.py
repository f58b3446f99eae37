"""A learner's own FSRS parameters, fitted to their review history with fsrs-rs.

A history is one list per card of (reviewed_at, rating 1..4). fsrs-rs learns from "items":
for each review at least a day after the card's previous one, the card's reviews up to and
including it, each with the whole days since the review before (0 for the first). Those are
the scored reviews: whether each was passed (rating above 1) is what the fit predicts. Days
are counted as the scheduler counts them, whole days of elapsed time. The fit is worth keeping
only when its log loss on the same history is below that of the parameters in use now.

Kept out of `engine/__init__` so that only the background worker loads fsrs-rs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter

import fsrs_rs_python as fsrs_rs
from fsrs.scheduler import (
    DEFAULT_PARAMETERS,
    LOWER_BOUNDS_PARAMETERS,
    UPPER_BOUNDS_PARAMETERS,
)

History = Sequence[tuple[datetime, int]]
"""One card's reviews: when, and the rating (1 again, 2 hard, 3 good, 4 easy)."""

MIN_REVIEWS = 400
"""Scored reviews needed before fitting: with fewer, the fit follows noise more than the
learner, and fsrs-rs hands back its defaults for small sets anyway."""


@dataclass(frozen=True)
class FitResult:
    """Fitted parameters and how well each set predicts the history (log loss, lower is
    better). `current` is the set in use when the fit ran."""

    parameters: tuple[float, ...]
    reviews: int
    log_loss_current: float
    log_loss_fitted: float

    @property
    def better(self) -> bool:
        """Whether to keep the fitted parameters."""
        return self.log_loss_fitted < self.log_loss_current


def scored_reviews(histories: Sequence[History]) -> int:
    """How many reviews a fit would learn from."""
    return len(_items(histories))


def fit(
    histories: Sequence[History],
    *,
    current: Sequence[float] | None = None,
    min_reviews: int = MIN_REVIEWS,
) -> FitResult | None:
    """Parameters fitted to `histories`, compared with `current` (fsrs's defaults when None).

    None when there are fewer than `min_reviews` scored reviews.
    """
    items = _items(histories)
    if len(items) < max(min_reviews, 1):
        return None
    raw = fsrs_rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(items)
    # fsrs-rs works in float32: four decimals keep all it knows, and the clip keeps the
    # result inside the bounds fsrs's scheduler checks.
    fitted = tuple(
        min(max(round(w, 4), low), high)
        for w, low, high in zip(raw, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)
    )
    return FitResult(
        parameters=fitted,
        reviews=len(items),
        log_loss_current=_log_loss(items, current),
        log_loss_fitted=_log_loss(items, fitted),
    )


def evaluate(histories: Sequence[History], parameters: Sequence[float] | None = None) -> float:
    """Log loss of `parameters` (fsrs's defaults when None) predicting `histories`' scored
    reviews; lower is better. `ValueError` when there is nothing to score."""
    return _log_loss(_items(histories), parameters)


def _log_loss(items: list[fsrs_rs.FSRSItem], parameters: Sequence[float] | None) -> float:
    if not items:
        raise ValueError("no review comes a day or more after the card's previous one")
    weights = DEFAULT_PARAMETERS if parameters is None else parameters
    return float(fsrs_rs.FSRS([float(w) for w in weights]).evaluate(items).log_loss)


def _items(histories: Sequence[History]) -> list[fsrs_rs.FSRSItem]:
    items: list[fsrs_rs.FSRSItem] = []
    for history in histories:
        reviews: list[fsrs_rs.FSRSReview] = []
        previous: datetime | None = None
        for at, rating in sorted(_checked(history), key=itemgetter(0)):
            days = 0 if previous is None else (at - previous).days
            reviews.append(fsrs_rs.FSRSReview(rating, days))
            # A same-day review moves the memory but isn't scored: fsrs-rs refuses it as an item.
            if days > 0:
                items.append(fsrs_rs.FSRSItem(list(reviews)))
            previous = at
    return items


def _checked(history: History) -> list[tuple[datetime, int]]:
    checked = []
    for at, rating in history:
        if at.tzinfo is None or at.utcoffset() is None:
            raise ValueError(f"review times must be timezone-aware, got {at.isoformat()}")
        if isinstance(rating, bool) or int(rating) != rating or not 1 <= rating <= 4:
            raise ValueError(f"a rating is 1, 2, 3 or 4, not {rating!r}")
        checked.append((at, int(rating)))
    return checked
