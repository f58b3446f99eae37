"""Question families: reproducible, right, honest about mistakes, exact on the lecture figures."""

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine import grade_numeric
from engine.answer_key import Interval, Mistake, Tolerance, exact_fraction
from engine.formatting import format_number
from engine.generators import FAMILIES, MAX_SEED, Variant, get_family
from tests.engine.plain import ANSWERS
from tests.engine.typed import graded, typed_forms

NAMES = sorted(FAMILIES)
seeds = st.integers(min_value=0, max_value=MAX_SEED)
families = st.sampled_from(NAMES)
PROPERTY = settings(max_examples=150, deadline=None)

DATA_KEYS = {
    "relu_neuron": {"w", "b", "x"},
    "gelu_neuron": {"w", "b", "x"},
    "mlp_weights": {"d_model", "ratio", "layers", "model"},
    "mlp_params": {"d_model", "ratio", "model"},
    "attention_params": {"d_model", "heads", "biases", "model"},
    "block_params": {"d_model", "ratio", "biases", "model"},
    "model_params": {
        "d_model",
        "layers",
        "ratio",
        "vocab",
        "context",
        "tied",
        "learned_positions",
        "biases",
        "final_norm",
        "model",
    },
    "and_gate_bias": {"scale", "features"},
    "toy_mlp_forward": {"directions", "x", "w_up", "b_up", "w_down", "ask"},
    "attention_softmax": {"d_k", "q", "keys", "key"},
    "layer_norm": {"x", "index", "gamma", "beta", "eps"},
    "context_cost": {"context", "factor", "quantity"},
    "near_orthogonal": {"dims", "measure"},
    "kv_cache_bytes": {
        "layers",
        "heads",
        "kv_heads",
        "head_dim",
        "context",
        "batch",
        "bytes",
        "model",
    },
    "weight_memory": {"billions", "bits"},
    "training_flops": {"params", "tokens", "run"},
    "chinchilla_optimal": {"ask", "budget", "billions"},
    "attention_mlp_flops": {"d_model", "ratio", "context", "model"},
}


def test_every_family_named_in_the_design_is_registered() -> None:
    assert set(NAMES) == set(DATA_KEYS)
    assert all(get_family(name).name == name for name in NAMES)


def test_an_unknown_family_is_a_key_error_that_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="relu_neuron"):
        get_family("softmax_neuron")


@PROPERTY
@given(name=families, seed=seeds)
def test_a_seed_always_gives_the_same_variant(name: str, seed: int) -> None:
    family = get_family(name)

    assert family.variant(seed) == family.variant(seed)


@PROPERTY
@given(name=families, batch=st.lists(seeds, min_size=1, max_size=12))
def test_a_variant_is_its_row_of_any_batch(name: str, batch: list[int]) -> None:
    family = get_family(name)

    generated = family.generate(np.array(batch, dtype=np.uint64))

    for i, seed in enumerate(batch):
        assert family.materialize(generated, i) == family.variant(seed)


@PROPERTY
@given(name=families, seed=seeds)
@example(name="chinchilla_optimal", seed=149332)  # √(C / 120) rounded: 288.675135
def test_the_answer_equals_a_plain_python_computation(name: str, seed: int) -> None:
    variant = get_family(name).variant(seed)

    expected = ANSWERS[name](variant.data)

    if isinstance(variant.answer, Interval):
        assert (exact_fraction(variant.answer.low), exact_fraction(variant.answer.high)) == expected
        assert (variant.answer.low_closed, variant.answer.high_closed) == (False, True)
    elif isinstance(expected, int | Fraction):
        assert exact_fraction(variant.answer) == expected
    else:
        # Answers are kept to nine significant figures (base.significant): half a unit of the
        # ninth is at most 5e-9 of the value, and a hair more for the float arithmetic.
        assert math.isclose(variant.answer, expected, rel_tol=6e-9, abs_tol=1e-8)


@PROPERTY
@given(name=families, seed=seeds)
def test_every_mistake_differs_from_the_answer_beyond_the_tolerance(name: str, seed: int) -> None:
    variant = get_family(name).variant(seed)

    for mistake in variant.mistakes:
        if isinstance(variant.answer, Interval):
            assert isinstance(mistake.value, Interval)
            assert not mistake.value.overlaps(variant.answer)
        else:
            assert not isinstance(mistake.value, Interval)
            assert not variant.tolerance.accepts(exact_fraction(mistake.value), variant.answer)


@PROPERTY
@given(name=families, seed=seeds)
def test_typing_a_mistakes_value_names_that_mistake(name: str, seed: int) -> None:
    variant = get_family(name).variant(seed)

    for mistake in variant.mistakes:
        result = grade_numeric(
            _inside(mistake),
            answer=variant.answer,
            tolerance=variant.tolerance,
            mistakes=variant.mistakes,
        )
        assert result.status == "incorrect"
        assert result.misconception == mistake


@PROPERTY
@given(name=families, seed=seeds)
def test_the_right_answer_typed_in_every_accepted_form_grades_correct(name: str, seed: int) -> None:
    variant = get_family(name).variant(seed)

    for text in typed_forms(variant.answer):
        assert graded(variant, text).status == "correct", text


@PROPERTY
@given(name=families, seed=seeds)
def test_what_is_shown_before_answering_gives_nothing_away(name: str, seed: int) -> None:
    variant = get_family(name).variant(seed)
    shown = json.dumps(variant.public(), ensure_ascii=False)

    assert set(variant.data) == DATA_KEYS[name]
    assert not any(
        word in key for key in variant.data for word in ("answer", "mistake", "solution")
    )
    if isinstance(variant.answer, int):
        assert str(variant.answer) not in shown
        assert variant.correct_answer not in shown
        for mistake in variant.mistakes:
            assert str(mistake.value) not in shown


@PROPERTY
@given(name=families, seed=seeds)
def test_a_variant_is_plain_json_and_round_trips(name: str, seed: int) -> None:
    variant = get_family(name).variant(seed)

    _assert_plain(variant.data)
    restored = Variant.from_dict(json.loads(json.dumps(variant.to_dict())))

    assert restored == variant


@PROPERTY
@given(name=families, seed=seeds)
def test_a_variant_posed_from_its_own_data_is_the_same_question(name: str, seed: int) -> None:
    family = get_family(name)
    variant = family.variant(seed)

    posed = family.pose(variant.data)

    assert posed.seed is None
    assert posed.answer == variant.answer
    assert posed.mistakes == variant.mistakes
    assert posed.prompt == variant.prompt


@pytest.mark.parametrize("name", NAMES)
def test_every_variant_has_a_prompt_and_worked_steps(name: str) -> None:
    variant = get_family(name).variant(2024)

    assert variant.prompt.strip().endswith(("?", "."))
    assert variant.solution_steps
    assert variant.correct_answer


@pytest.mark.parametrize("name", NAMES)
def test_batches_carry_every_mistake_code_as_a_column(name: str) -> None:
    family = get_family(name)

    batch = family.generate(np.arange(2_000))

    assert set(batch.mistakes) == {spec.code for spec in family.mistake_specs}
    assert len(batch) == 2_000
    assert all(values.shape[0] == 2_000 for values in batch.mistakes.values())
    for values in batch.mistakes.values():
        assert not np.isnan(values).all(), "every mistake occurs in some variant"


def test_relu_answers_are_zero_in_a_quarter_to_a_half_of_the_variants() -> None:
    batch = get_family("relu_neuron").generate(np.arange(20_000))

    share = float(np.mean(batch.answer == 0))

    assert 0.25 <= share <= 0.5


def test_relu_inputs_sit_on_a_tenth_grid_with_three_to_six_dimensions() -> None:
    family = get_family("relu_neuron")

    for seed in range(200):
        data = family.variant(seed).data
        assert 3 <= len(data["w"]) == len(data["x"]) <= 6
        for value in [*data["w"], *data["x"], data["b"]]:
            assert exact_fraction(value) * 10 == round(exact_fraction(value) * 10)


def test_mlp_widths_are_multiples_of_64_up_to_16384_or_named_models() -> None:
    batch = get_family("mlp_weights").generate(np.arange(5_000))

    d = batch.data["d_model"]

    assert np.all(d % 64 == 0)
    assert d.max() <= 16_384
    assert {512, 768, 12_288} <= set(d.tolist())


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32])
def test_seeds_of_any_integer_type_give_the_same_batch(dtype: Any) -> None:
    family = get_family("layer_norm")

    batch = family.generate(np.arange(50, dtype=dtype))

    assert np.array_equal(batch.answer, family.generate(list(range(50))).answer, equal_nan=True)


@pytest.mark.parametrize("bad", [[-1], [MAX_SEED + 1], [0.5], [[1, 2]], [True]])
def test_seeds_outside_the_range_are_refused(bad: list[Any]) -> None:
    with pytest.raises(ValueError, match="seeds"):
        get_family("relu_neuron").generate(
            np.array(bad, dtype=object if bad == [MAX_SEED + 1] else None)
        )


@pytest.mark.parametrize("bad", [-1, MAX_SEED + 1, 2**64, True, 0.0])
def test_a_single_seed_outside_the_range_is_refused(bad: int) -> None:
    with pytest.raises(ValueError, match="seeds"):
        get_family("relu_neuron").variant(bad)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("relu_neuron", {"w": [1, 2], "b": 0, "x": [1]}),
        ("relu_neuron", {"w": [1], "x": [1]}),
        ("mlp_weights", {"ratio": 4}),
        ("mlp_weights", {"d_model": 768, "model": "GPT-5"}),
        ("attention_params", {"d_model": 768, "heads": 7}),
        ("layer_norm", {"x": [1, 1, 1], "index": 1}),
    ],
)
def test_posing_from_numbers_that_dont_fit_is_a_value_error(
    name: str, data: dict[str, Any]
) -> None:
    with pytest.raises(ValueError, match=r"."):
        get_family(name).pose(data)


def test_the_largest_seed_works() -> None:
    assert get_family("relu_neuron").variant(MAX_SEED).seed == MAX_SEED


def test_families_differ_for_the_same_seed() -> None:
    a = get_family("relu_neuron").generate(np.arange(100)).data["x"]
    b = get_family("gelu_neuron").generate(np.arange(100)).data["x"]

    assert not np.array_equal(a[:, :4], b)


def test_gelu_tanh_approximation_grades_correct() -> None:
    family = get_family("gelu_neuron")

    for seed in range(300):
        variant = family.variant(seed)
        z = (
            sum(w * x for w, x in zip(variant.data["w"], variant.data["x"], strict=True))
            + variant.data["b"]
        )
        tanh_form = 0.5 * z * (1 + math.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))
        assert graded(variant, f"{tanh_form:.6f}").status == "correct"


# The figures from the lessons, from the families themselves.


def test_gpt2_small_mlp_has_4722432_parameters() -> None:
    variant = get_family("mlp_params").pose({"d_model": 768, "ratio": 4, "model": "GPT-2 small"})

    assert variant.answer == 4_722_432
    assert variant.correct_answer == "4,722,432"


def test_gpt2_small_attention_has_2362368_parameters() -> None:
    variant = get_family("attention_params").pose({"d_model": 768, "heads": 12, "biases": True})

    assert variant.answer == 2_362_368


def test_gpt2_small_has_124439808_parameters_with_tied_embeddings() -> None:
    gpt2 = {"d_model": 768, "layers": 12, "vocab": 50_257, "context": 1024, "model": "GPT-2 small"}

    variant = get_family("model_params").pose(gpt2)

    assert variant.answer == 124_439_808
    assert "tied" in variant.prompt


def test_gpt3_mlp_weights_are_115964116992() -> None:
    variant = get_family("mlp_weights").pose({"d_model": 12_288, "ratio": 4, "layers": 96})

    assert variant.answer == 115_964_116_992
    assert get_family("mlp_weights").pose({"d_model": 12_288}).answer == 1_207_959_552


def test_d_model_1000_with_ratio_4_gives_8000000_mlp_weights() -> None:
    variant = get_family("mlp_weights").pose({"d_model": 1_000, "ratio": 4})

    assert variant.answer == 8_000_000
    assert graded(variant, "8e6").status == "correct"
    assert graded(variant, "4,000,000").misconception.code == "one_matrix"


def test_the_lecture_neuron_gives_0_7() -> None:
    variant = get_family("relu_neuron").pose({"w": [1, 1, 0], "b": -1, "x": [0.8, 0.9, 0.3]})

    assert variant.answer == 0.7
    assert variant.correct_answer == "0.7"
    assert variant.solution_steps[-1] == "ReLU(z) = max(0, 0.7) = 0.7"


def test_named_gpt_models_come_out_of_the_seeds_too() -> None:
    batch = get_family("mlp_params").generate(np.arange(3_000))

    assert 4_722_432 in batch.answer.astype(np.int64).tolist()


def test_and_gate_accepts_any_bias_between_minus_two_scale_and_minus_scale() -> None:
    variant = get_family("and_gate_bias").pose({"scale": 1, "features": ["Michael", "Jordan"]})

    assert variant.correct_answer == "any value in (\u22122, \u22121]"
    assert graded(variant, "-1").status == "correct"
    assert graded(variant, "-1.9").status == "correct"
    assert graded(variant, "-2").misconception.code == "always_off"
    assert graded(variant, "-0.5").misconception.code == "or_gate"
    assert graded(variant, "0.5").misconception.code == "always_on"


def _inside(mistake: Mistake) -> Fraction:
    """A value the mistake produces: itself, or a point inside its range."""
    value = mistake.value
    if not isinstance(value, Interval):
        return exact_fraction(value)
    if value.high is not None and value.high_closed:
        return exact_fraction(value.high)
    assert value.low is not None
    return exact_fraction(value.low) + 1


def _assert_plain(value: Any) -> None:
    if isinstance(value, dict):
        assert all(isinstance(k, str) for k in value)
        for v in value.values():
            _assert_plain(v)
    elif isinstance(value, list):
        for v in value:
            _assert_plain(v)
    else:
        assert value is None or type(value) in (int, float, str, bool), type(value)


# Attention weights: graded by significant figures, so no slip passes for a right answer.


def test_no_attention_slip_or_bare_0_or_1_is_ever_graded_right_over_100000_variants() -> None:
    family = get_family("attention_softmax")
    batch = family.generate(np.arange(100_000))
    data = batch.data
    # The slips, worked out here from the numbers shown, not taken from the family.
    present = np.arange(data["keys"].shape[1]) < data["n_keys"][:, None]
    scores = np.where(present, (data["keys"] * data["q"][:, None, :]).sum(axis=2), -np.inf)

    def weight(scaled: np.ndarray) -> np.ndarray:
        shares = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        shares /= shares.sum(axis=1, keepdims=True)
        return np.take_along_axis(shares, data["key"][:, None], axis=1)[:, 0]

    slips = {
        "no_scaling": weight(scores),
        "scaled_by_d_k": weight(scores / data["d_k"][:, None]),
        "uniform": 1 / data["n_keys"],
        "0": np.zeros(len(batch)),
        "1": np.ones(len(batch)),
    }
    three_figures = Tolerance.relative(0.01)
    codes = [spec.code for spec in family.mistake_specs]
    graded_right = dict.fromkeys(slips, 0)
    not_named = dict.fromkeys(slips, 0)

    for i, answer in enumerate(batch.answer.tolist()):
        mistakes = [
            Mistake(code, "", value)
            for code in codes
            if not math.isnan(value := float(batch.mistakes[code][i]))
        ]
        for slip, values in slips.items():
            typed = float(f"{values[i]:.9g}")  # as a learner would type it, nine figures
            if three_figures.accepts(exact_fraction(typed), answer):
                continue
            result = grade_numeric(
                typed,
                answer=answer,
                tolerance=family.tolerance,
                mistakes=mistakes,
                partial=family.partial,
                correct_answer="",
            )
            graded_right[slip] += result.status == "correct"
            named = slip in codes and any(m.code == slip for m in mistakes)
            not_named[slip] += named and result.misconception is None

    assert graded_right == dict.fromkeys(slips, 0)
    assert not_named == dict.fromkeys(slips, 0)


def test_attention_weights_name_both_scaling_slips_and_equal_weights() -> None:
    variant = get_family("attention_softmax").pose(
        {"d_k": 4, "q": [1, 2, 0, 1], "keys": [[2, 1, 0, 1], [0, 0, 1, 0], [1, -1, 2, 0]], "key": 1}
    )
    # Scores 5, 0 and −1; scaled by √4 = 2: 2.5, 0 and −0.5.
    weight = math.exp(2.5) / (math.exp(2.5) + 1 + math.exp(-0.5))

    assert variant.answer == pytest.approx(weight, abs=1e-9)
    assert variant.correct_answer == format_number(weight)
    assert graded(variant, f"{weight:.3g}").status == "correct"
    assert graded(variant, "0.9").status == "partial"
    assert graded(variant, "0").status == "incorrect"
    assert (
        graded(variant, f"{math.exp(5) / (math.exp(5) + 1 + math.exp(-1)):.3g}").misconception.code
        == "no_scaling"
    )
    by_d_k = math.exp(1.25) / (math.exp(1.25) + 1 + math.exp(-0.25))
    assert graded(variant, f"{by_d_k:.3g}").misconception.code == "scaled_by_d_k"
    assert graded(variant, "1/3").misconception.code == "uniform"
