"""The ways a person may type a number, for checking that each one grades as the number."""

from fractions import Fraction

from engine.answer_key import Expected, Interval
from engine.generators import Variant
from engine.grading import Grade, grade

_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _scientific(n: int) -> tuple[str, int]:
    """An exact mantissa and exponent: 4722432 -> ("4.722432", 6)."""
    digits = str(n)
    tail = digits[1:].rstrip("0")
    return (f"{digits[0]}.{tail}" if tail else digits[0]), len(digits) - 1


def count_forms(n: int) -> list[str]:
    mantissa, exponent = _scientific(n)
    millions = _decimal(Fraction(n, 10**6))
    thousands = _decimal(Fraction(n, 1000))
    return [
        str(n),
        f"{n:,}",
        f"{n:,}".replace(",", " "),
        f"{n:,}".replace(",", "\u202f"),
        f"{n:_}",
        f"{mantissa}e{exponent}",
        f"{mantissa}E+{exponent:02d}",
        f"{mantissa}×10^{exponent}",
        f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPTS)}",
        f"{mantissa}*10**{exponent}",
        f"{millions} million",
        f"{millions}M",
        f"{thousands}k",
        f"{n:,} parameters",
        f"~{n}",
    ]


def _decimal(value: Fraction) -> str:
    """A fraction with a power-of-ten denominator, written out in full."""
    whole, rest = divmod(value.numerator, value.denominator)
    if rest == 0:
        return str(whole)
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    scaled = value * 10**places
    text = str(scaled.numerator).rjust(places + 1, "0")
    return f"{text[:-places]}.{text[-places:]}"


def decimal_forms(x: float) -> list[str]:
    """Seven significant figures, so a tiny weight is not typed as 0.000000."""
    exact = Fraction(repr(x))
    forms = [repr(x), f"{x:.7g}", f"{x:.5e}", f"{x * 100:.7g}%", f"{x:.7g} units", str(exact)]
    if 0 < abs(x) < 1:
        forms.append(f"{x:.7g}".replace("0.", ".", 1))
    if x < 0:
        forms += [f"−{-x:.7g}", f"- {-x:.7g}"]
    return forms


def typed_forms(answer: Expected) -> list[str]:
    if isinstance(answer, Interval):
        assert answer.high is not None
        assert answer.high_closed
        assert answer.low is not None
        middle = (answer.low + answer.high) / 2
        return [*decimal_forms(answer.high), *decimal_forms(middle)]
    if isinstance(answer, int):
        return count_forms(answer)
    return decimal_forms(answer)


def graded(variant: Variant, text: str) -> Grade:
    """Grade typed text that is expected to be readable."""
    result = grade(variant, text)
    assert isinstance(result, Grade), result
    return result
