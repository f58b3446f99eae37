"""Grading: exact counts, tolerances, intervals, mistakes named, partial credit, choices."""

from fractions import Fraction

import pytest

from engine import get_family, grade, grade_choices, grade_numeric
from engine.answer_key import Interval, Mistake, PartialCredit, Tolerance
from engine.answers import Number, Refusal, read_number
from tests.engine.typed import graded

EXACT = Tolerance.exact()
ONE_MATRIX = Mistake("one_matrix", "That is one matrix.", 4_000_000)
FORGOT_RATIO = Mistake("forgot_ratio", "The hidden layer is wider.", 2_000_000)


def test_a_count_typed_as_8e6_equals_8000000_exactly() -> None:
    read = read_number("8e6")
    assert isinstance(read, Number)

    result = grade_numeric(read, answer=8_000_000, tolerance=EXACT)

    assert (result.status, result.score) == ("correct", 1.0)
    assert result.value_read == Fraction(8_000_000)
    assert result.correct_answer == "8,000,000"


def test_a_count_one_off_is_wrong() -> None:
    result = grade_numeric(8_000_001, answer=8_000_000, tolerance=EXACT)

    assert (result.status, result.score, result.misconception) == ("incorrect", 0.0, None)


@pytest.mark.parametrize(
    ("typed", "status"),
    [
        (0.7, "correct"),
        (0.705, "correct"),
        (0.695, "correct"),
        (0.7051, "incorrect"),
        (0.6949, "incorrect"),
    ],
)
def test_absolute_tolerance_includes_its_edges_exactly(typed: float, status: str) -> None:
    result = grade_numeric(typed, answer=0.7, tolerance=Tolerance.absolute(0.005))

    assert result.status == status


@pytest.mark.parametrize(
    ("typed", "status"), [(110, "correct"), (90, "correct"), (110.01, "incorrect")]
)
def test_relative_tolerance_scales_with_the_answer(typed: float, status: str) -> None:
    assert grade_numeric(typed, answer=100, tolerance=Tolerance.relative(0.1)).status == status


def test_an_interval_takes_any_value_inside_it_and_respects_open_ends() -> None:
    answer = Interval(-2.0, -1.0, low_closed=False, high_closed=True)

    assert grade_numeric(-1, answer=answer, tolerance=EXACT).status == "correct"
    assert grade_numeric(Fraction(-3, 2), answer=answer, tolerance=EXACT).status == "correct"
    assert grade_numeric(-2, answer=answer, tolerance=EXACT).status == "incorrect"
    assert (
        grade_numeric(-1, answer=answer, tolerance=EXACT).correct_answer == "any value in (−2, −1]"
    )


def test_a_mistakes_value_names_the_mistake() -> None:
    result = grade_numeric(
        4_000_000, answer=8_000_000, tolerance=EXACT, mistakes=[ONE_MATRIX, FORGOT_RATIO]
    )

    assert (result.status, result.score) == ("incorrect", 0.0)
    assert result.misconception == ONE_MATRIX


def test_a_value_two_mistakes_give_names_neither() -> None:
    twin = Mistake("forgot_ratio", "The hidden layer is wider.", 4_000_000)

    result = grade_numeric(
        4_000_000, answer=8_000_000, tolerance=EXACT, mistakes=[ONE_MATRIX, twin]
    )

    assert (result.status, result.misconception) == ("incorrect", None)


def test_a_value_that_matches_two_mistakes_within_the_tolerance_names_neither() -> None:
    no_scaling = Mistake("no_scaling", "Divide by √d_k.", 0.30)
    by_d_k = Mistake("scaled_by_d_k", "Divide by √d_k, not d_k.", 0.308)

    between = grade_numeric(
        0.304, answer=0.5, tolerance=Tolerance.absolute(0.005), mistakes=[no_scaling, by_d_k]
    )
    clear = grade_numeric(
        0.296, answer=0.5, tolerance=Tolerance.absolute(0.005), mistakes=[no_scaling, by_d_k]
    )

    assert between.misconception is None
    assert clear.misconception == no_scaling


def test_a_mistake_is_not_named_for_a_value_nearer_the_answer() -> None:
    # A relative tolerance around a large mistake reaches past the halfway point.
    tripled = Mistake("tripled", "Counted three times.", 3)

    nearer_answer = grade_numeric(
        1.6, answer=1, tolerance=Tolerance.relative(0.5), mistakes=[tripled]
    )
    nearer_mistake = grade_numeric(
        2.2, answer=1, tolerance=Tolerance.relative(0.5), mistakes=[tripled]
    )

    assert (nearer_answer.status, nearer_answer.misconception) == ("incorrect", None)
    assert nearer_mistake.misconception == tripled


def test_a_mistake_on_an_open_end_of_the_answer_is_still_named() -> None:
    never_fires = Mistake("boundary_never_fires", "z = 0 never fires.", -1)
    answer = Interval(-1.0, -0.5, low_closed=False, high_closed=True)

    result = grade_numeric(-1, answer=answer, tolerance=EXACT, mistakes=[never_fires])

    assert result.misconception == never_fires


@pytest.mark.parametrize("typed", ["4.7M", "4.72 million", "4,722,000", "4,722,430", "4.7e6"])
def test_a_rounded_count_is_marked_rounded_and_stays_incorrect(typed: str) -> None:
    result = grade_numeric(_read(typed), answer=4_722_432, tolerance=EXACT)

    assert (result.status, result.score, result.rounded) == ("incorrect", 0.0, True)
    assert result.misconception is None


@pytest.mark.parametrize("typed", ["5M", "4.8M", "4,722,431", "4.75M", "4722432.5"])
def test_a_count_that_is_not_a_rounding_of_the_answer_is_plainly_wrong(typed: str) -> None:
    result = grade_numeric(_read(typed), answer=4_722_432, tolerance=EXACT)

    assert (result.status, result.rounded) == ("incorrect", False)


def test_a_rounded_value_is_only_a_rounding_where_the_answer_is_an_exact_count() -> None:
    result = grade_numeric(0.7, answer=0.7049, tolerance=Tolerance.absolute(0.001))

    assert result.rounded is False


@pytest.mark.parametrize("typed", ["66.2", "66.2%", "66.20 %", "66.197", "66.2 percent"])
def test_a_percentage_reads_the_same_with_or_without_the_sign(typed: str) -> None:
    result = grade_numeric(
        _read(typed), answer=66.1966, tolerance=Tolerance.absolute(0.05), percent=True
    )

    assert result.status == "correct"
    assert result.correct_answer == "66.2%"


@pytest.mark.parametrize("typed", ["66.3", "66.1", "66.3%", "0.662%"])
def test_a_percentage_is_graded_around_the_exact_value_not_the_rounded_key(typed: str) -> None:
    result = grade_numeric(
        _read(typed), answer=66.1966, tolerance=Tolerance.absolute(0.05), percent=True
    )

    assert result.status == "incorrect"


def _read(text: str) -> Number:
    read = read_number(text)
    assert isinstance(read, Number)
    return read


def test_a_mistake_matches_within_the_questions_tolerance() -> None:
    no_relu = Mistake("no_relu", "That is z.", -0.3)

    result = grade_numeric(
        -0.302, answer=0.0, tolerance=Tolerance.absolute(0.005), mistakes=[no_relu]
    )

    assert result.misconception == no_relu


def test_an_interval_mistake_matches_anywhere_inside_it() -> None:
    or_gate = Mistake("or_gate", "One feature is enough.", Interval(-1.0, 0.0, False, True))
    answer = Interval(-2.0, -1.0, False, True)

    result = grade_numeric(-0.25, answer=answer, tolerance=EXACT, mistakes=[or_gate])

    assert result.misconception == or_gate


def test_partial_credit_where_the_question_allows_it() -> None:
    partial = PartialCredit(Tolerance.relative(0.3), 0.5)

    near = grade_numeric(0.12, answer=0.1, tolerance=Tolerance.relative(0.1), partial=partial)
    far = grade_numeric(0.14, answer=0.1, tolerance=Tolerance.relative(0.1), partial=partial)

    assert (near.status, near.score) == ("partial", 0.5)
    assert (far.status, far.score) == ("incorrect", 0.0)


def test_a_known_mistake_is_named_even_inside_the_partial_band() -> None:
    partial = PartialCredit(Tolerance.relative(0.5), 0.5)
    mistake = Mistake("one_over_n", "Spread is 1/√N.", 0.13)

    result = grade_numeric(
        0.13, answer=0.1, tolerance=Tolerance.relative(0.1), mistakes=[mistake], partial=partial
    )

    assert (result.status, result.misconception) == ("incorrect", mistake)


def test_the_grade_carries_the_steps_and_serializes_for_the_api() -> None:
    result = grade_numeric(
        4_000_000,
        answer=8_000_000,
        tolerance=EXACT,
        mistakes=[ONE_MATRIX],
        solution_steps=["W↑: 4,000,000", "W↓: 4,000,000"],
    )

    assert result.to_dict() == {
        "status": "incorrect",
        "score": 0.0,
        "misconception": {"code": "one_matrix", "message": "That is one matrix."},
        "correct_answer": "8,000,000",
        "solution_steps": ["W↑: 4,000,000", "W↓: 4,000,000"],
        "value_read": 4_000_000.0,
    }


def test_unreadable_text_is_refused_not_graded() -> None:
    variant = get_family("relu_neuron").variant(1)

    result = grade(variant, "1,5")

    assert isinstance(result, Refusal)
    assert result.code == "ambiguous_comma"


def test_the_lecture_neurons_mistakes_are_named() -> None:
    variant = get_family("relu_neuron").pose({"w": [1, 1, 0], "b": -1, "x": [0.8, 0.9, 0.3]})

    assert graded(variant, ".7").status == "correct"
    assert graded(variant, "7/10").status == "correct"
    assert graded(variant, "1.7").misconception.code == "no_bias"
    assert graded(variant, "2.7").misconception.code == "bias_sign"


def test_a_negative_pre_activation_given_as_the_answer_is_no_relu() -> None:
    variant = get_family("relu_neuron").pose({"w": [1, 1, 0], "b": -2, "x": [0.5, 0.2, 0.3]})

    result = graded(variant, "−1.3")

    assert variant.answer == 0
    assert result.misconception.code == "no_relu"
    assert result.correct_answer == "0"


# Choice questions


def test_single_choice_is_right_or_wrong() -> None:
    right = grade_choices(picked=[3], correct=[3], choices=[1, 2, 3, 4], multiple=False)
    wrong = grade_choices(picked=[2], correct=[3], choices=[1, 2, 3, 4], multiple=False)

    assert (right.status, right.score) == ("correct", 1.0)
    assert (wrong.status, wrong.score) == ("incorrect", 0.0)


@pytest.mark.parametrize(
    ("picked", "status", "score"),
    [
        ([1, 2, 3], "correct", 1.0),
        ([1, 2], "partial", 2 / 3),
        ([1, 2, 3, 4], "partial", 2 / 3),
        ([1, 4], "incorrect", 0.0),
        ([4, 5], "incorrect", 0.0),
        ([], "incorrect", 0.0),
    ],
)
def test_multiple_choice_scores_right_picks_minus_wrong_picks(
    picked: list[int], status: str, score: float
) -> None:
    result = grade_choices(picked=picked, correct=[1, 2, 3], choices=[1, 2, 3, 4, 5], multiple=True)

    assert result.status == status
    assert result.score == pytest.approx(score)
    assert result.value_read is None


@pytest.mark.parametrize(("picked", "multiple"), [([9], True), ([1, 2], False), ([], False)])
def test_impossible_picks_are_refused(picked: list[int], multiple: bool) -> None:
    with pytest.raises(ValueError, match=r"choice|pick"):
        grade_choices(picked=picked, correct=[1], choices=[1, 2, 3], multiple=multiple)
