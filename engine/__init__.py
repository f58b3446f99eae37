"""Residual's engine: question generators, answer reading, grading, scheduling and labs.

Pure Python and NumPy: nothing here imports Django or the apps, reads the clock or uses global
randomness. The apps call in through the names below; the background worker fits scheduler
parameters through `engine.fitting`.
"""

from engine.answer_key import Interval, Mistake, PartialCredit, Tolerance
from engine.answers import Number, ReadNumber, Refusal, read_number
from engine.formatting import format_number
from engine.generators import FAMILIES, Batch, Family, Variant, get_family
from engine.grading import Grade, grade, grade_choices, grade_numeric
from engine.scheduling import (
    CardState,
    Rating,
    ReviewOutcome,
    SchedulerConfig,
    rating_for,
    replay,
    retrievability,
    retrievability_at,
    review,
    review_rng,
    review_seeds,
)

__all__ = [
    "FAMILIES",
    "Batch",
    "CardState",
    "Family",
    "Grade",
    "Interval",
    "Mistake",
    "Number",
    "PartialCredit",
    "Rating",
    "ReadNumber",
    "Refusal",
    "ReviewOutcome",
    "SchedulerConfig",
    "Tolerance",
    "Variant",
    "format_number",
    "get_family",
    "grade",
    "grade_choices",
    "grade_numeric",
    "rating_for",
    "read_number",
    "replay",
    "retrievability",
    "retrievability_at",
    "review",
    "review_rng",
    "review_seeds",
]
