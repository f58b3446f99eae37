"""The chance of recall now, computed in the database: the engine's forgetting curve over each
card's stability and the whole days since its last review, as fsrs counts them, so a mean over
any number of cards is one aggregate and no card is loaded."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Case, F, Value, When
from django.db.models.expressions import Combinable
from django.db.models.functions import Floor, Greatest, Power

from config.dbfunctions import Epoch
from engine.scheduling import forgetting_curve

_DAY_SECONDS = 86_400.0


def recall_now(now: datetime) -> Combinable:
    """A card's chance of recall at `now` by FSRS-6's curve with the default parameters,
    R = (1 + factor · t / S) ** decay with t the whole days since the last review (none below
    0); 0 for a card with no stability, as `engine.scheduling.retrievability` gives it. Only
    for cards with a last review."""
    return Case(When(stability__gt=0, then=recall_curve(now)), default=Value(0.0))


def recall_curve(now: datetime) -> Combinable:
    """The curve of `recall_now` alone, for cards already filtered to a positive stability and
    a last review (an aggregate over a class's cards spends less on each)."""
    decay, factor = forgetting_curve()
    elapsed_days = Greatest(
        Floor((Value(now.timestamp()) - Epoch("last_review")) / Value(_DAY_SECONDS)), Value(0.0)
    )
    return Power(Value(1.0) + Value(factor) * elapsed_days / F("stability"), Value(decay))
