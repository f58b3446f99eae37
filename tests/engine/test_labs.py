"""Labs: the numbers behind the lessons' interactive demos."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from engine import labs


def test_the_lecture_neuron_gives_exactly_0_7() -> None:
    steps = labs.neuron(w=[1, 1, 0], b=-1, x=[0.8, 0.9, 0.3])

    assert steps.products == [Fraction(4, 5), Fraction(9, 10), Fraction(0)]
    assert steps.weighted_sum == Fraction(17, 10)
    assert steps.pre_activation == steps.output == Fraction(7, 10)
    assert steps.to_dict() == {
        "activation": "relu",
        "products": [0.8, 0.9, 0.0],
        "sum": 1.7,
        "bias": -1.0,
        "pre_activation": 0.7,
        "output": 0.7,
    }


def test_text_inputs_are_read_like_typed_answers() -> None:
    assert labs.neuron(w=["1", "1", "0"], b="−1", x=[".8", "9/10", "0.3"]).output == Fraction(7, 10)


def test_relu_cuts_a_negative_pre_activation_to_zero() -> None:
    steps = labs.neuron(w=[1, 1], b=-1, x=[0.2, 0.3])

    assert steps.pre_activation == Fraction(-1, 2)
    assert steps.output == 0


def test_gelu_is_z_times_phi_of_z_with_its_dip_near_minus_0_17() -> None:
    steps = labs.neuron(w=[1], b=0, x=[-0.75], activation="gelu")

    assert steps.output == pytest.approx(-0.75 * 0.5 * (1 + math.erf(-0.75 / math.sqrt(2))))
    assert steps.output == pytest.approx(-0.17, abs=0.005)


@pytest.mark.parametrize(
    "inputs",
    [
        {"w": [1, 2], "b": 0, "x": [1]},
        {"w": [], "b": 0, "x": []},
        {"w": [1], "b": float("nan"), "x": [1]},
        {"w": ["one"], "b": 0, "x": [1]},
        {"w": [1], "b": 0, "x": [1], "activation": "tanh"},
    ],
)
def test_a_neuron_with_unusable_inputs_says_why(inputs: dict[str, object]) -> None:
    with pytest.raises(labs.LabInputError):
        labs.neuron(**inputs)  # type: ignore[arg-type]


def test_gpt2_small_parameters_part_by_part() -> None:
    count = labs.parameters(d_model=768, layers=12, vocab=50_257, context=1024)

    assert count.part("MLP").count == 4_722_432
    assert count.part("attention").count == 2_362_368
    assert count.part("layer norms").count == 3_072
    assert count.total == 124_439_808
    assert any("tied" in line for line in count.convention)
    assert count.to_dict()["total"] == 124_439_808


def test_the_gpt3_lecture_tally_counts_weight_matrices_only() -> None:
    count = labs.parameters(
        d_model=12_288, layers=96, vocab=50_257, biases=False, tied=False, norms=False
    )

    mlp = next(p for p in count.to_dict()["parts"] if p["name"] == "MLP")

    assert mlp["total"] == 115_964_116_992
    assert count.total == 175_181_291_520
    assert any("No learned position embeddings" in line for line in count.convention)


def test_a_model_with_d_model_1000_has_8000000_mlp_weights_per_block() -> None:
    count = labs.parameters(d_model=1_000, layers=1, vocab=1, biases=False)

    assert count.part("MLP").count == 8_000_000


@pytest.mark.parametrize(
    "inputs",
    [
        {"d_model": 0, "layers": 12, "vocab": 50_257},
        {"d_model": 768, "layers": 0, "vocab": 50_257},
        {"d_model": 768, "layers": 12, "vocab": 50_257, "ratio": 2.5},
        {"d_model": True, "layers": 12, "vocab": 50_257},
    ],
)
def test_a_parameter_count_with_unusable_inputs_says_why(inputs: dict[str, object]) -> None:
    with pytest.raises(labs.LabInputError):
        labs.parameters(**inputs)  # type: ignore[arg-type]


def test_angles_between_random_directions_squeeze_towards_90_degrees() -> None:
    histogram = labs.near_orthogonal(dims=100, vectors=300, rng=np.random.default_rng(6))

    assert sum(histogram.counts) == histogram.pairs == 300 * 299 // 2
    assert len(histogram.bin_edges) == len(histogram.counts) + 1
    assert histogram.mean_degrees == pytest.approx(90, abs=0.5)
    assert histogram.std_degrees == pytest.approx(histogram.expected_std_degrees, rel=0.1)
    assert histogram.within_5_degrees_of_90 > 0.5


@pytest.mark.parametrize("dims", [39, 40, 41, 300])
def test_drawing_in_the_vectors_own_basis_gives_the_angles_of_full_gaussian_vectors(
    dims: int,
) -> None:
    """At or above as many dimensions as vectors the lab draws no full vectors: the cosines
    it gives must still have the moments of two random directions' (mean 0, variance 1/d,
    fourth moment 3/(d(d+2))) and the same smallest angle as vectors drawn in full."""
    vectors, draws = 40, 400
    rng = np.random.default_rng(11)
    cosines, smallest, smallest_full = [], [], []
    for _ in range(draws):
        histogram = labs.near_orthogonal(dims=dims, vectors=vectors, rng=rng, bins=180)
        smallest.append(histogram.min_degrees)
        full = rng.standard_normal((vectors, dims))
        full /= np.linalg.norm(full, axis=1, keepdims=True)
        upper = np.triu_indices(vectors, k=1)
        smallest_full.append(np.degrees(np.arccos((full @ full.T)[upper].max())))
        points = labs._directions(rng, dims=dims, vectors=vectors).astype(np.float64)
        points /= np.linalg.norm(points, axis=1, keepdims=True)
        cosines.append((points @ points.T)[upper])
    every = np.concatenate(cosines)

    assert abs(every.mean()) < 0.003
    assert every.var() == pytest.approx(1 / dims, rel=0.02)
    assert (every**4).mean() == pytest.approx(3 / (dims * (dims + 2)), rel=0.05)
    # The extremes come from the whole joint law, not just each pair's: compare them too.
    assert np.mean(smallest) == pytest.approx(np.mean(smallest_full), rel=0.01)
    assert stats.ks_2samp(smallest, smallest_full).pvalue > 0.001


def test_few_dimensions_spread_the_angles_wide() -> None:
    low = labs.near_orthogonal(dims=10, vectors=200, rng=1)
    high = labs.near_orthogonal(dims=1_000, vectors=200, rng=1)

    assert low.std_degrees > 3 * high.std_degrees


def test_the_same_seed_gives_the_same_histogram() -> None:
    first = labs.near_orthogonal(dims=50, vectors=40, rng=123).to_dict()

    assert labs.near_orthogonal(dims=50, vectors=40, rng=123).to_dict() == first


@pytest.mark.parametrize(
    "inputs",
    [
        {"dims": 1, "vectors": 10},
        {"dims": 10, "vectors": 1},
        {"dims": 10_000, "vectors": 1_000},
        {"dims": 10, "vectors": 10, "bins": 0},
    ],
)
def test_a_histogram_with_unusable_inputs_says_why(inputs: dict[str, int]) -> None:
    with pytest.raises(labs.LabInputError):
        labs.near_orthogonal(rng=0, **inputs)  # type: ignore[arg-type]


def test_the_exact_angle_shares_add_up_and_match_a_draw() -> None:
    histogram = labs.near_orthogonal(dims=100, vectors=600, rng=4, bins=36)
    expected = labs.angle_shares(100, histogram.bin_edges)

    assert sum(expected) == pytest.approx(1)
    observed = np.array(histogram.counts) / histogram.pairs
    assert np.abs(observed - np.array(expected)).max() < 0.02
    assert histogram.within_1_degree_of_90 == pytest.approx(labs.share_within(100, 1), abs=0.01)
    assert histogram.within_10_degrees_of_90 == pytest.approx(labs.share_within(100, 10), abs=0.01)
    # Two dimensions: the angle is uniform from 0° to 180°.
    assert labs.share_within(2, 9) == pytest.approx(18 / 180)


def test_the_bound_and_what_fits_grow_with_the_dimensions() -> None:
    assert labs.perpendicular_bound(10, 10) == 1.0  # says nothing at so few dimensions
    assert labs.perpendicular_bound(12_288, 10) < 1e-80
    assert labs.directions_that_fit_log10(12_288, 10) == pytest.approx(40.08, abs=0.01)
    assert 1 - labs.share_within(1_000, 5) <= labs.perpendicular_bound(1_000, 5)
    with pytest.raises(labs.LabInputError):
        labs.angle_shares(1, [0.0, 180.0])


# --- the toy MLP -----------------------------------------------------------------------------

# The toy written out here as matrices, apart from the engine's tables: rows of W↑ over
# (Michael, Jordan, Phelps, country, basketball, Bulls, swimming, Middle East).
W_UP = np.array([[1, 1, 0, 0, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0, 0, 0], [0, 1, 0, 1, 0, 0, 0, 0]])
B_UP = np.array([-1.0, -1.0, -1.0])
W_DOWN = np.array([[0, 0, 0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0, 0, 1]]).T
TOKENS = {
    "michael-jordan": [0.9, 1, 0, 0, 0, 0, 0, 0],
    "michael-phelps": [1, 0, 0.8, 0, 0, 0, 0, 0],
    "jordan-country": [0, 1, 0, 0.7, 0, 0, 0, 0],
    "jordan": [0, 1, 0, 0, 0, 0, 0, 0],
}


@pytest.mark.parametrize("token", list(TOKENS))
@pytest.mark.parametrize("broken", [None, "n1", "n2", "n3"])
def test_the_toy_mlp_computes_x_plus_w_down_relu_w_up_x_plus_b(token, broken) -> None:
    x = np.array(TOKENS[token], dtype=float)
    b = B_UP.copy()
    if broken:
        b[int(broken[1]) - 1] = 0
    z = W_UP @ x + b
    mlp = W_DOWN @ np.maximum(z, 0)

    result = labs.toy_mlp(token=token, broken=broken)

    assert result["directions"][4:] == ["basketball", "Bulls", "swimming", "Middle East"]
    assert result["token"]["vector"] == pytest.approx(x)
    assert [n["pre_activation"] for n in result["neurons"]] == pytest.approx(z)
    assert [n["output"] for n in result["neurons"]] == pytest.approx(np.maximum(z, 0))
    assert [n["fires"] for n in result["neurons"]] == list(z > 1e-12)
    assert [n["broken"] for n in result["neurons"]] == [f"n{k}" == broken for k in (1, 2, 3)]
    assert result["mlp_output"] == pytest.approx(mlp)
    assert result["result"] == pytest.approx(x + mlp)
    held = dict(zip(result["directions"], x + mlp, strict=True))
    assert {f["direction"]: f["amount"] for f in result["facts"]} == pytest.approx(
        {d: v for d, v in list(held.items())[4:] if v > 1e-12}
    )


def test_each_token_gets_its_own_fact_and_half_a_question_is_not_enough() -> None:
    def facts(token, broken=None):
        return [f["direction"] for f in labs.toy_mlp(token=token, broken=broken)["facts"]]

    assert facts("michael-jordan") == ["basketball", "Bulls"]
    assert facts("michael-phelps") == ["swimming"]
    assert facts("jordan-country") == ["Middle East"]
    assert facts("jordan") == []
    # N1 sees Michael in Phelps and Jordan in the country: z = 1 + 0 − 1 = 0, not above 0.
    phelps = labs.toy_mlp(token="michael-phelps")["neurons"][0]
    assert (phelps["pre_activation"], phelps["fires"]) == (0.0, False)
    # Break N1's bias and one feature is enough: basketball for everyone with either name.
    assert facts("michael-phelps", "n1") == ["basketball", "Bulls", "swimming"]
    assert facts("jordan-country", "n1") == ["basketball", "Bulls", "Middle East"]
    assert facts("jordan", "n1") == ["basketball", "Bulls"]


def test_sums_are_exact_not_floating_point() -> None:
    n1 = labs.toy_mlp(token="michael-jordan")["neurons"][0]

    assert n1["pre_activation"] == 0.9  # 0.9 + 1 - 1 in floats is 0.8999999999999999
    assert n1["adds"][4:6] == [0.9, 0.9]


@pytest.mark.parametrize(
    ("inputs", "field"),
    [({"token": "lebron"}, "token"), ({"token": "jordan", "broken": "n4"}, "broken")],
)
def test_the_toy_mlp_refuses_what_it_does_not_have(inputs, field) -> None:
    with pytest.raises(labs.LabInputError, match=f"^{field} must be one of"):
        labs.toy_mlp(**inputs)


# --- the residual stream ---------------------------------------------------------------------


def stream_here(off=()):
    """The three blocks written out apart from the engine: (Michael, Jordan, basketball, Bulls,
    NBA); block 1's attention copies Michael in, each MLP is ReLU(a + b − 1) into one direction."""
    x = np.array([0.0, 1, 0, 0, 0])
    mlps = {"mlp-1": ((0, 1), 2), "mlp-2": ((0, 2), 3), "mlp-3": ((1, 2), 4)}
    for part in labs.STREAM_PART_KEYS:
        if part in off:
            continue
        if part == "attention-1":
            x = x + np.array([1.0, 0, 0, 0, 0])
        elif part in mlps:
            (a, b), writes = mlps[part]
            x[writes] += max(x[a] + x[b] - 1, 0)
    return x


SWITCHED = [(), ("attention-1",), ("mlp-1",), ("mlp-2",), ("mlp-3",), ("attention-2", "mlp-3")]


@pytest.mark.parametrize("off", SWITCHED)
def test_the_stream_adds_each_parts_writing_to_the_vector(off) -> None:
    result = labs.residual_stream(off=off)
    final = stream_here(off)

    assert result["final"] == pytest.approx(final)
    assert result["stages"][-1]["after"] == result["final"]
    assert [stage["on"] for stage in result["stages"]] == [
        key not in off for key in labs.STREAM_PART_KEYS
    ]
    # Each part's vector is the one before plus what the part adds.
    before = np.array(result["embedding"])
    for stage in result["stages"]:
        assert stage["after"] == pytest.approx(before + np.array(stage["adds"]))
        before = np.array(stage["after"])
    scores = np.array([1 + 3 * final[2], 1, 1])
    chances = np.exp(scores) / np.exp(scores).sum()
    assert [w["chance"] for w in result["prediction"]] == pytest.approx(chances)


def test_without_block_1s_attention_the_whole_chain_breaks_and_without_mlp_2_only_bulls() -> None:
    def holds(off):
        result = labs.residual_stream(off=off)
        return [d for d, v in zip(result["directions"], result["final"], strict=True) if v]

    assert holds([]) == ["Michael", "Jordan", "basketball", "Bulls", "NBA"]
    assert holds(["attention-1"]) == ["Jordan"]
    # Block 3 reads basketball, which block 1 wrote, straight from the stream.
    assert holds(["mlp-2"]) == ["Michael", "Jordan", "basketball", "NBA"]
    chance = labs.residual_stream(off=["attention-1"])["prediction"][0]["chance"]
    assert chance == pytest.approx(1 / 3)


def test_an_unknown_part_is_refused_by_name() -> None:
    with pytest.raises(labs.LabInputError, match=r"^off: 'mlp-4' is not a part"):
        labs.residual_stream(off=["mlp-4"])
