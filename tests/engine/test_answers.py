"""Reading typed answers: every accepted form, and every refusal with its reason."""

from fractions import Fraction

import pytest

from engine.answers import MAX_LENGTH, Number, Refusal, read_number

F = Fraction
MILLION8 = F(8_000_000)

READ = [
    # whole numbers and thousands separators
    ("8000000", MILLION8),
    ("8,000,000", MILLION8),
    ("8 000 000", MILLION8),
    ("8\u00a0000\u00a0000", MILLION8),
    ("8\u202f000\u202f000", MILLION8),
    ("8\u2009000\u2009000", MILLION8),
    ("8_000_000", MILLION8),
    ("8'000'000", MILLION8),
    ("1,000.5", F(2001, 2)),
    ("12,345,678.25", F("12345678.25")),
    ("1 234.5", F(2469, 2)),
    ("0", F(0)),
    ("-0", F(0)),
    # scientific notation and powers of ten
    ("8e6", MILLION8),
    ("8E6", MILLION8),
    ("8E+06", MILLION8),
    ("8e+6", MILLION8),
    ("8.0e6", MILLION8),
    ("0.8e7", MILLION8),
    ("80e5", MILLION8),
    ("1e-3", F(1, 1000)),
    ("1.5e-3", F(3, 2000)),
    ("8×10^6", MILLION8),
    ("8 × 10^6", MILLION8),
    ("8x10^6", MILLION8),
    ("8X10^6", MILLION8),
    ("8*10^6", MILLION8),
    ("8*10**6", MILLION8),
    ("8 * 10 ** 6", MILLION8),
    ("8·10^6", MILLION8),
    ("8×10⁶", MILLION8),
    ("1.5×10⁻³", F(3, 2000)),
    ("10^6", F(1_000_000)),
    ("10⁶", F(1_000_000)),
    ("2^10", F(1024)),
    # magnitude words and letters
    ("8 million", MILLION8),
    ("8 Million", MILLION8),
    ("8 millions", MILLION8),
    ("8M", MILLION8),
    ("8m", MILLION8),
    ("8 mn", MILLION8),
    ("2.4k", F(2400)),
    ("2.4K", F(2400)),
    ("2.4 thousand", F(2400)),
    ("1.2 billion", F(1_200_000_000)),
    ("175B", F(175_000_000_000)),
    ("175 bn", F(175_000_000_000)),
    ("1.5T", F(1_500_000_000_000)),
    ("1.5 trillion", F(1_500_000_000_000)),
    # fractions, decimals and signs
    ("7/10", F(7, 10)),
    ("7 / 10", F(7, 10)),
    ("-7/10", F(-7, 10)),
    ("1/3", F(1, 3)),
    ("1.5/3", F(1, 2)),
    (".7", F(7, 10)),
    ("0.7", F(7, 10)),
    ("0.70", F(7, 10)),
    ("00.7", F(7, 10)),
    ("7.", F(7)),
    ("+0.7", F(7, 10)),
    ("-0.3", F(-3, 10)),
    ("−0.3", F(-3, 10)),
    ("–0.3", F(-3, 10)),
    ("- 0.3", F(-3, 10)),
    ("−.3", F(-3, 10)),
    ("70%", F(7, 10)),
    ("70 %", F(7, 10)),
    ("12.5 percent", F(1, 8)),
    # units, approximations and spacing
    ("8000000 weights", MILLION8),
    ("8,000,000 parameters", MILLION8),
    ("8 million weights", MILLION8),
    ("8 000 000 weights", MILLION8),
    ("2.4k params", F(2400)),
    ("4x", F(4)),
    ("4×", F(4)),
    ("4 times", F(4)),
    ("3.6°", F(18, 5)),
    ("3.6 degrees", F(18, 5)),
    ("~0.7", F(7, 10)),
    ("≈ 0.7", F(7, 10)),
    ("about 0.7", F(7, 10)),
    ("= 0.7", F(7, 10)),
    ("  0.7  ", F(7, 10)),
    ("0.7\n", F(7, 10)),
]

REFUSED = [
    ("", "empty"),
    ("   ", "empty"),
    ("\n\t", "empty"),
    ("1" * (MAX_LENGTH + 1), "too_long"),
    ("nan", "not_finite"),
    ("NaN", "not_finite"),
    ("inf", "not_finite"),
    ("-inf", "not_finite"),
    ("Infinity", "not_finite"),
    ("∞", "not_finite"),
    ("5 nan", "not_finite"),
    ("1,5", "ambiguous_comma"),
    ("0,7", "ambiguous_comma"),
    ("−0,3", "ambiguous_comma"),
    ("1,50", "ambiguous_comma"),
    ("1,5000", "ambiguous_comma"),
    ("1,000,00", "ambiguous_comma"),
    ("3,14159", "ambiguous_comma"),
    ("1.000,5", "ambiguous_comma"),
    ("1,5 weights", "ambiguous_comma"),
    ("0.7 0.8", "two_numbers"),
    ("1 5", "two_numbers"),
    ("0.7, 0.8", "two_numbers"),
    ("3-4", "two_numbers"),
    ("3 to 4", "two_numbers"),
    ("0.7 or 0.8", "two_numbers"),
    ("5 and 6", "two_numbers"),
    ("8 000 00", "two_numbers"),
    ("2 x 3", "two_numbers"),
    ("abc", "not_a_number"),
    ("seven", "not_a_number"),
    ("one million", "not_a_number"),
    ("e6", "not_a_number"),
    ("8e", "not_a_number"),
    ("--5", "not_a_number"),
    ("8.000.000", "not_a_number"),
    ("(0.7)", "not_a_number"),
    ("$5", "not_a_number"),
    ("weights 5", "not_a_number"),
    ("8 hundred", "not_a_number"),
    ("5 squared", "not_a_number"),
    ("°", "not_a_number"),
    ("1/0", "division_by_zero"),
    ("0/0", "division_by_zero"),
    ("0^-1", "division_by_zero"),
    ("1e999", "out_of_range"),
    ("1e-999", "out_of_range"),
    ("10^1000", "out_of_range"),
]


@pytest.mark.parametrize(("text", "value"), READ)
def test_reads_the_number_people_type(text: str, value: Fraction) -> None:
    assert read_number(text) == Number(value)


@pytest.mark.parametrize(("text", "code"), REFUSED)
def test_refuses_text_that_is_not_one_number(text: str, code: str) -> None:
    result = read_number(text)

    assert isinstance(result, Refusal)
    assert result.code == code
    assert result.message.endswith(".")


def test_the_table_is_large() -> None:
    assert len(READ) + len(REFUSED) >= 80


def test_exponent_notation_and_grouped_digits_read_the_same_exact_count() -> None:
    assert read_number("8e6") == read_number("8,000,000") == Number(Fraction(8_000_000))


def test_ambiguous_comma_message_says_how_to_write_it() -> None:
    result = read_number("1,5")

    assert isinstance(result, Refusal)
    assert "comma" in result.message
    assert "1.5" in result.message


def test_text_of_exactly_the_limit_is_read() -> None:
    text = "0." + "5" * (MAX_LENGTH - 2)

    assert isinstance(read_number(text), Number)
