"""Reading a typed answer: text as a person types it, to one exact number or a reason why not.

Read: `8000000`, `8,000,000`, `8 000 000`, `8e6`, `8E+06`, `8×10^6`, `8×10⁶`, `8*10**6`,
`8 million`, `8M`, `2.4k`, `7/10`, `.7`, `70%`, `-0.3` or `−0.3`, `~0.7`, and any of them with
a trailing unit (`8000000 weights`, `4x`, `3.6°`). A comma separates thousands only between whole
groups of three digits, so `1,5` is refused as ambiguous rather than guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction

MAX_LENGTH = 100
MAX_EXPONENT = 100  # beyond 10^±100 nothing in the course is an answer; it also bounds the work

_TRANSLATE = str.maketrans(
    {
        "\u2212": "-",  # minus sign
        "\u2013": "-",  # en dash, which phone keyboards put in for a minus
        "\ufe63": "-",
        "\uff0d": "-",
        "\u00a0": " ",  # no-break, figure, thin and narrow spaces group digits
        "\u2007": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u200a": " ",
        "×": "x",
        "✕": "x",
        "·": "*",
        "⋅": "*",
        "’": "'",
    }
)
_SUPERSCRIPT = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_FROM_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")

_NUMBER = re.compile(
    r"""
    ^(?:(?:~|≈|=|about|approx\.?|approximately|around|roughly)\s*)?
    (?P<sign>[-+])?\s*
    (?P<digits>
        \d{1,3}(?:,\d{3})+(?:\.\d+)?
      | \d{1,3}(?:\ \d{3})+(?:\.\d+)?
      | \d{1,3}(?:_\d{3})+(?:\.\d+)?
      | \d{1,3}(?:'\d{3})+(?:\.\d+)?
      | \d+(?:\.\d*)?
      | \.\d+
    )
    (?:
        e(?P<exp>[-+]?\d+)
      | \s*[*x]\s*10\s*(?:\^|\*\*)\s*(?P<pow10>[-+]?\d+)
      | \s*(?:\^|\*\*)\s*(?P<power>[-+]?\d+)
    )?
    (?:\s*/\s*(?P<den>\d+(?:\.\d*)?|\.\d+)(?:e(?P<den_exp>[-+]?\d+))?)?
    (?:\s*(?P<scale>thousands?|millions?|billions?|trillions?|mn|bn|k|m|b|t)(?![^\W\d_]))?
    (?:\s*(?P<percent>%|percent|per\ cent))?
    (?:\s*(?P<unit>(?:°|[^\W\d_]+\.?)(?:[\ -][^\W\d_]+\.?){0,3}))?
    \s*$
    """,
    re.VERBOSE | re.IGNORECASE,
)
_SCALES = {"k": 3, "thousand": 3, "m": 6, "mn": 6, "million": 6}
_SCALES |= {"b": 9, "bn": 9, "billion": 9, "t": 12, "trillion": 12}
# Words that would change the number if they were taken for a unit.
_NOT_UNITS = frozenset(
    [
        *("hundred", "hundreds", "dozen", "dozens", "lakh", "crore", "mil"),  # other multipliers
        *("squared", "cubed", "half", "halves", "quarter", "quarters", "third", "thirds", "point"),
        *("mega", "giga", "kilo", "tera", "milli", "micro", "nano", "e"),  # prefixes, a lone e
        *("or", "and", "to", "minus", "plus", "over", "divided"),  # arithmetic and lists
        *("nan", "inf", "infinity"),
    ]
)
_NOT_FINITE = re.compile(r"\b(?:nan|inf|infinity)\b|∞", re.IGNORECASE)
_AMBIGUOUS_COMMA = re.compile(r"\d,\d")
_TWO_NUMBERS = re.compile(
    r"\d\.?(?:\s*(?:[,;&*x-]|\bor\b|\band\b|\bto\b)\s*|\s+)[-+]?\.?\d", re.IGNORECASE
)


@dataclass(frozen=True)
class Number:
    """A typed answer read as one exact number.

    `percent` says the text ended in a percent sign (or word), already applied to `value`
    (`70%` is 7/10), so a question asked in percent can read `66.2%` as 66.2. It is not part of
    the number: `70%` and `0.7` are equal.
    """

    value: Fraction
    percent: bool = field(default=False, compare=False)

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True)
class Refusal:
    """Why typed text is not one number: a stable `code` and a `message` for the learner.

    Codes: `empty`, `too_long`, `not_finite`, `ambiguous_comma`, `two_numbers`,
    `not_a_number`, `division_by_zero`, `out_of_range`.
    """

    code: str
    message: str


ReadNumber = Number | Refusal

_MESSAGES = {
    "empty": "Type a number to answer.",
    "too_long": f"That is longer than {MAX_LENGTH} characters. Type just the number.",
    "not_finite": "That is not a finite number. Type a value such as 0.7.",
    "ambiguous_comma": (
        "A comma here could be a decimal point or a thousands separator. Use a point for"
        " decimals (1.5) and commas only between groups of three digits (1,500)."
    ),
    "two_numbers": "That looks like more than one number. Type a single value.",
    "not_a_number": "That can't be read as a number. Type digits, such as 0.7, 8,000,000 or 8e6.",
    "division_by_zero": "A fraction can't have 0 below the line.",
    "out_of_range": "That number is too large or too small to be an answer here.",
}


def refusal(code: str) -> Refusal:
    return Refusal(code, _MESSAGES[code])


def read_number(text: str) -> ReadNumber:
    """Read typed text as one exact number, or say why it can't be read.

    The value is a `Fraction`, so `8e6` equals `8,000,000` exactly and `0.1` is one tenth.
    """
    if len(text) > MAX_LENGTH:
        return refusal("too_long")
    cleaned = _normalize(text)
    if not cleaned:
        return refusal("empty")
    match = _NUMBER.match(cleaned)
    unit = match["unit"] if match else None
    if match is None or (unit is not None and _names_a_number(unit)):
        return refusal(_diagnose(cleaned))
    return _evaluate(match)


def _normalize(text: str) -> str:
    text = text.translate(_TRANSLATE)
    text = _SUPERSCRIPT.sub(lambda m: "^" + m.group().translate(_FROM_SUPERSCRIPT), text)
    return " ".join(text.split())


def _names_a_number(unit: str) -> bool:
    return any(word.lower().rstrip(".") in _NOT_UNITS for word in re.split(r"[ -]", unit))


def _diagnose(text: str) -> str:
    if _NOT_FINITE.search(text):
        return "not_finite"
    if _AMBIGUOUS_COMMA.search(text):
        return "ambiguous_comma"
    if _TWO_NUMBERS.search(text):
        return "two_numbers"
    return "not_a_number"


def _evaluate(match: re.Match[str]) -> ReadNumber:
    value = _decimal(match["digits"])
    exponent = 0
    for group in ("exp", "pow10"):
        if match[group] is not None:
            exponent += int(match[group])
    if match["power"] is not None:
        power = int(match["power"])
        if value == 0 and power < 0:
            return refusal("division_by_zero")
        if value != 0 and abs(power) * abs(math.log10(value)) > MAX_EXPONENT:
            return refusal("out_of_range")
        value = value**power
    if match["den"] is not None:
        denominator = _decimal(match["den"])
        den_exp = int(match["den_exp"] or 0)
        if abs(den_exp) > MAX_EXPONENT:
            return refusal("out_of_range")
        if denominator == 0:
            return refusal("division_by_zero")
        value /= denominator * Fraction(10) ** den_exp
    if match["scale"] is not None:
        exponent += _SCALES[match["scale"].lower().rstrip("s")]
    if match["percent"] is not None:
        exponent -= 2
    if abs(exponent) > MAX_EXPONENT:
        return refusal("out_of_range")
    value *= Fraction(10) ** exponent
    if value != 0 and abs(math.log10(abs(value))) > MAX_EXPONENT:
        return refusal("out_of_range")
    return Number(-value if match["sign"] == "-" else value, match["percent"] is not None)


def _decimal(digits: str) -> Fraction:
    whole, _, decimals = re.sub(r"[, _']", "", digits).partition(".")
    return Fraction(
        int(whole or "0") * 10 ** len(decimals) + int(decimals or "0"), 10 ** len(decimals)
    )
