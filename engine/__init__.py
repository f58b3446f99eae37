"""Residual's engine: question generators, answer reading, grading and labs.

Pure Python and NumPy: nothing here imports Django or the apps, reads the clock or uses global
randomness. The apps call in through the names below.
"""

from engine.answer_key import Interval, Mistake, PartialCredit, Tolerance
from engine.answers import Number, ReadNumber, Refusal, read_number
from engine.formatting import format_number
from engine.generators import FAMILIES, Batch, Family, Variant, get_family
from engine.grading import Grade, grade, grade_choices, grade_numeric

__all__ = [
    "FAMILIES",
    "Batch",
    "Family",
    "Grade",
    "Interval",
    "Mistake",
    "Number",
    "PartialCredit",
    "ReadNumber",
    "Refusal",
    "Tolerance",
    "Variant",
    "format_number",
    "get_family",
    "grade",
    "grade_choices",
    "grade_numeric",
    "read_number",
]
