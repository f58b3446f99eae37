"""What one caller may make the labs do: throttled, bounded by work, cached by input, and
every number bounded."""

import pytest

from config.throttles import SimpleRateThrottle
from engine import labs
from tests.conftest import assert_problem
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

NEAR_ORTHOGONAL = "/api/v1/labs/near-orthogonal/"
NEURON = "/api/v1/labs/neuron/"


@pytest.fixture
def rates(monkeypatch):
    def set_rate(scope: str, rate: str) -> None:
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)

    return set_rate


@pytest.fixture
def computations(monkeypatch):
    """How many times the engine was asked for each lab."""
    counted = {"near_orthogonal": 0, "neuron": 0}

    def counting(name):
        real = getattr(labs, name)

        def wrapper(**kwargs):
            counted[name] += 1
            return real(**kwargs)

        return wrapper

    for name in counted:
        monkeypatch.setattr(labs, name, counting(name))
    return counted


def test_anonymous_callers_are_throttled_by_address_whatever_they_forward(api, rates):
    rates("labs-anonymous", "3/min")
    responses = [
        api.get(
            NEURON,
            params={"w": "1", "b": "0", "x": "1"},
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
        )
        for n in range(4)
    ]

    assert [r.status_code for r in responses] == [200, 200, 200, 429]
    assert_problem(responses[3], 429)
    assert responses[0].headers["RateLimit-Policy"] == '"labs-anonymous";q=3;w=60'
    assert int(responses[3].headers["Retry-After"]) > 0


def test_signed_in_callers_are_throttled_by_user(api, rates):
    rates("labs-anonymous", "1/min")
    rates("labs", "2/min")
    api.authenticate(UserFactory())

    responses = [api.get(NEURON, params={"w": "1", "b": "0", "x": str(n)}) for n in range(3)]

    assert [r.status_code for r in responses] == [200, 200, 429]
    assert responses[0].headers["RateLimit"] == '"labs";r=1;t=60'


def test_a_request_over_the_work_budget_is_a_400_naming_both_inputs_and_the_budget(api):
    response = api.get(NEAR_ORTHOGONAL, params={"dims": 2000, "vectors": 500})

    body = assert_problem(response, 400)
    assert {error["field"] for error in body["errors"]} == {"dims", "vectors"}
    assert f"{labs.WORK_BUDGET:,}" in body["detail"]
    assert f"use at most {labs.max_vectors(2000)} vectors" in body["detail"]


def test_the_lab_reaches_gpt3_width_with_fewer_vectors(api):
    widest = api.get(NEAR_ORTHOGONAL, params={"dims": 12_288, "vectors": 122, "seed": 1})
    defaulted = api.get(NEAR_ORTHOGONAL, params={"dims": 12_288, "seed": 1})

    assert widest.status_code == 200, widest.text
    assert widest.json()["pairs"] == 122 * 121 // 2
    assert 89 < widest.json()["summary"]["mean_degrees"] < 91
    assert widest.json()["summary"]["std_degrees"] < 1
    assert defaulted.json() == widest.json()


def test_results_are_cached_by_their_inputs(api, computations):
    seeded = {"dims": 300, "vectors": 50, "seed": 7}
    first = api.get(NEAR_ORTHOGONAL, params=seeded)
    second = api.get(NEAR_ORTHOGONAL, params=seeded)
    api.get(NEURON, params={"w": "1,2", "b": "0", "x": "0.5,1"})
    api.get(NEURON, params={"w": "1.0,2.00", "b": "-0", "x": ".5,1e0"})

    assert first.json() == second.json()
    assert computations == {"near_orthogonal": 1, "neuron": 1}


def test_a_fresh_draw_is_kept_under_its_seed(api, computations):
    fresh = api.get(NEAR_ORTHOGONAL, params={"dims": 50, "vectors": 20}).json()
    again = api.get(NEAR_ORTHOGONAL, params={"dims": 50, "vectors": 20, "seed": fresh["seed"]})

    assert again.json() == fresh
    assert computations["near_orthogonal"] == 1


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"w": "1e200,1", "b": "0", "x": "1,1"}, "w"),
        ({"w": "1", "b": "1e300", "x": "1"}, "b"),
        ({"w": "1", "b": "0", "x": "-1e7"}, "x"),
        ({"w": "1", "b": "-1e309", "x": "1"}, "b"),
    ],
)
def test_huge_finite_numbers_in_the_neuron_lab_are_400_naming_the_limit(api, params, field):
    body = assert_problem(api.get(NEURON, params=params), 400, field=field)

    assert "1,000,000" in body["detail"]


def test_the_largest_numbers_allowed_give_finite_steps(api):
    steps = api.get(
        NEURON,
        params={"w": ",".join(["1e6"] * 64), "b": "1e6", "x": ",".join(["-1e6"] * 64)},
    )

    assert steps.status_code == 200, steps.text
    assert steps.json()["pre_activation"] == -64e12 + 1e6


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"seed": 2**64}, "seed"),
        ({"dims": 10**30}, "dims"),
        ({"vectors": -5}, "vectors"),
        ({"dims": 1.5}, "dims"),
    ],
)
def test_every_number_the_near_orthogonal_lab_takes_is_bounded(api, params, field):
    assert_problem(api.get(NEAR_ORTHOGONAL, params=params), 400, field=field)


def test_the_engine_refuses_numbers_past_its_bound_however_they_are_written():
    with pytest.raises(labs.LabInputError, match="1,000,000"):
        labs.neuron(w=[1e200], b=0, x=[1])


def test_an_over_long_list_of_numbers_is_a_400_naming_it(api):
    response = api.get(NEURON, params={"w": "0" * 2001, "b": "0", "x": "0"})

    body = assert_problem(response, 400, field="w")
    assert "2,000 characters" in body["detail"]
