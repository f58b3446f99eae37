"""The lessons' demos over HTTP: exact figures, bounded inputs."""

import pytest

from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_lectures_neuron_gives_point_seven_step_by_step(api):
    body = api.get("/api/v1/labs/neuron/", params={"w": "1,1,0", "b": "-1", "x": "0.8,0.9,0.3"})

    assert body.status_code == 200, body.text
    steps = body.json()
    assert steps["products"] == [0.8, 0.9, 0.0]
    assert steps["sum"] == 1.7
    assert steps["pre_activation"] == 0.7
    assert steps["output"] == 0.7


def test_gelu_bends_a_negative_input_slightly_below_zero(api):
    steps = api.get(
        "/api/v1/labs/neuron/", params={"w": "1", "b": "0", "x": "-0.75", "activation": "gelu"}
    ).json()

    assert -0.171 < steps["output"] < -0.169


def test_gpt2_small_has_124439808_parameters_with_tied_embeddings(api):
    counted = api.get("/api/v1/labs/parameters/").json()

    assert counted["total"] == 124_439_808
    parts = {p["name"]: p["count"] for p in counted["parts"]}
    assert 4_722_432 in parts.values()
    assert 2_362_368 in parts.values()
    assert counted["convention"]


def test_the_gpt3_lecture_tally_counts_weight_matrices_only(api):
    counted = api.get(
        "/api/v1/labs/parameters/",
        params={
            "d_model": 12288,
            "layers": 96,
            "context": 0,
            "biases": "false",
            "tied": "false",
            "norms": "false",
        },
    ).json()

    assert counted["total"] == 175_181_291_520


def test_random_directions_in_many_dimensions_are_nearly_orthogonal(api):
    body = api.get(
        "/api/v1/labs/near-orthogonal/", params={"dims": 1000, "vectors": 100, "seed": 3}
    )
    again = api.get(
        "/api/v1/labs/near-orthogonal/", params={"dims": 1000, "vectors": 100, "seed": 3}
    )

    histogram = body.json()
    assert histogram == again.json()
    assert histogram["pairs"] == 4950
    assert sum(histogram["counts"]) == 4950
    assert 85 < histogram["summary"]["mean_degrees"] < 95
    assert histogram["summary"]["within_5_degrees_of_90"] > 0.9


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("/api/v1/labs/near-orthogonal/", {"dims": 100_001}, "dims"),
        ("/api/v1/labs/near-orthogonal/", {"vectors": 5000}, "vectors"),
        ("/api/v1/labs/near-orthogonal/", {"dims": 10_000, "vectors": 1000}, "vectors"),
        ("/api/v1/labs/near-orthogonal/", {"dims": ""}, "dims"),
        ("/api/v1/labs/neuron/", {"w": "1,2", "b": "0", "x": "1"}, "x"),
        ("/api/v1/labs/neuron/", {"w": "1,a", "b": "0", "x": "1,1"}, "w"),
        ("/api/v1/labs/neuron/", {"w": ",".join(["1"] * 65), "b": "0", "x": "1"}, "w"),
        ("/api/v1/labs/parameters/", {"d_model": 0}, "d_model"),
        ("/api/v1/labs/parameters/", {"layers": "many"}, "layers"),
    ],
)
def test_inputs_past_the_limits_are_400_saying_the_limit(api, path, params, field):
    body = assert_problem(api.get(path, params=params), 400, field=field)

    assert body["errors"][0]["message"]


def test_the_and_gate_lab_gives_its_truth_table_and_the_gates_biases(api):
    body = api.get("/api/v1/labs/and-gate/", params={"bias": "-1.5", "scale": "2"})

    assert body.status_code == 200, body.text
    gate = body.json()
    assert [(r["a"], r["b"], r["pre_activation"]) for r in gate["rows"]] == [
        (0, 0, -1.5),
        (1, 0, 0.5),
        (0, 1, 0.5),
        (1, 1, 2.5),
    ]
    assert gate["kind"] == "or"  # at scale 2, -1.5 lets one feature through
    assert gate["and_interval"] == {"low": -4.0, "high": -2.0}
    assert gate["gelu_minimum"]["value"] == pytest.approx(-0.16997, abs=1e-5)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"bias": "11"}, "bias"),
        ({"bias": "x"}, "bias"),
        ({"bias": "0", "scale": "0"}, "scale"),
        ({"bias": "0", "activation": "tanh"}, "activation"),
        ({}, "bias"),
    ],
)
def test_the_and_gate_lab_refuses_what_it_cannot_compute(api, params, field):
    response = api.get("/api/v1/labs/and-gate/", params=params)

    assert_problem(response, 400)
    assert field in [error["field"] for error in response.json()["errors"]]


def test_the_labs_left_out_numbers_take_their_documented_defaults(api):
    gate = api.get("/api/v1/labs/and-gate/", params={"bias": "-1.5"}).json()
    dot = api.get("/api/v1/labs/dot-question/").json()

    assert (gate["scale"], gate["kind"]) == (1.0, "and")
    assert (dot["bias"], dot["person"]["vector"][-1], dot["pre_activation"]) == (-1.0, 0.5, 1.0)


def test_the_toy_mlp_lab_gives_the_fact_and_each_neurons_steps(api):
    default = api.get("/api/v1/labs/toy-mlp/").json()
    broken = api.get("/api/v1/labs/toy-mlp/", params={"token": "michael-phelps", "broken": "n1"})

    assert default["token"]["key"] == "michael-jordan"
    assert default["broken"] is None
    assert default["facts"] == [
        {"direction": "basketball", "amount": 0.9},
        {"direction": "Bulls", "amount": 0.9},
    ]
    n1 = broken.json()["neurons"][0]
    assert (n1["name"], n1["broken"], n1["bias"], n1["pre_activation"]) == ("N1", True, 0.0, 1.0)
    assert [f["direction"] for f in broken.json()["facts"]] == ["basketball", "Bulls", "swimming"]
    # An empty `broken`, as the page's own address carries it, breaks nothing.
    assert api.get("/api/v1/labs/toy-mlp/", params={"broken": ""}).json() == default


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"token": "lebron-james"}, "token"),
        ({"token": "jordan\x00"}, "token"),
        ({"token": "j" * 5000}, "token"),
        ({"broken": "n9"}, "broken"),
    ],
)
def test_the_toy_mlp_lab_refuses_what_it_does_not_have_by_name(api, params, field):
    response = api.get("/api/v1/labs/toy-mlp/", params=params)

    assert_problem(response, 400)
    assert [error["field"] for error in response.json()["errors"]] == [field]


def test_the_residual_stream_lab_switches_parts_off(api):
    every = api.get("/api/v1/labs/residual-stream/").json()
    without = api.get("/api/v1/labs/residual-stream/", params={"off": "mlp-2, attention-1,mlp-2"})

    assert every["off"] == []
    assert every["final"] == [1.0] * 5
    assert without.json()["off"] == ["attention-1", "mlp-2"]  # in order, each once
    assert without.json()["final"] == [0.0, 1.0, 0.0, 0.0, 0.0]
    assert api.get("/api/v1/labs/residual-stream/", params={"off": ""}).json() == every


@pytest.mark.parametrize("off", ["mlp-4", "mlp-1\x00", "x" * 300, "attention"])
def test_the_residual_stream_lab_refuses_an_unknown_part(api, off):
    response = api.get("/api/v1/labs/residual-stream/", params={"off": off})

    assert_problem(response, 400)
    assert [error["field"] for error in response.json()["errors"]] == ["off"]
