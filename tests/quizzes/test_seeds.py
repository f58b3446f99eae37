"""Seeds travel as strings of digits: a 64-bit integer does not survive a JavaScript number."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from engine import get_family
from engine.generators import MAX_SEED
from tests.conftest import assert_problem
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


@pytest.fixture
def question():
    return QuestionFactory(generator="relu_neuron", answer=None, tolerance=None, mistakes=[])


def test_a_served_variant_names_its_seed_as_a_string(api, learner, question):
    variant = api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]

    assert isinstance(variant["seed"], str)
    assert variant["seed"].isdigit()
    assert variant["data"] == get_family("relu_neuron").variant(int(variant["seed"])).data


def test_the_largest_seed_comes_back_whole(api, learner, question):
    largest = str(MAX_SEED)

    variant = api.get(f"/api/v1/questions/{question.pk}/", params={"seed": largest}).json()

    assert variant["variant"]["seed"] == largest == "9223372036854775807"
    assert variant["variant"]["data"] == get_family("relu_neuron").variant(MAX_SEED).data


@pytest.mark.parametrize(
    "seed",
    [
        "-1",
        "1.5",
        "1e3",
        "seven",
        " 42",
        "42\n",
        "+42",
        "\u0664\u0662",  # Arabic-Indic digits
        "4\x002",
        str(MAX_SEED + 1),
        "9" * 40,
    ],
)
def test_a_seed_that_is_not_digits_in_range_is_a_400_naming_it(api, learner, question, seed):
    refused = api.get(f"/api/v1/questions/{question.pk}/", params={"seed": seed})

    body = assert_problem(refused, 400, field="seed")
    assert "digits" in body["errors"][0]["message"]


def test_answers_and_the_export_give_seeds_as_strings(api, learner, question):
    variant = api.get(f"/api/v1/questions/{question.pk}/", params={"seed": str(MAX_SEED)}).json()
    body = {"response": "1", "variant": variant["variant"]["token"], "mode": "practice"}

    answered = api.post(f"/api/v1/questions/{question.pk}/answers/", body).json()
    exported = api.get("/api/v1/me/export/").json()

    assert answered["variant_seed"] == str(MAX_SEED)
    assert exported["answers"][0]["variant_seed"] == str(MAX_SEED)
    assert api.get(f"/api/v1/answers/{answered['answer_id']}/").json()["variant_seed"] == str(
        MAX_SEED
    )


def test_the_schema_says_seeds_are_strings_of_digits():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    detail = schema["paths"]["/api/v1/questions/{question_id}/"]["get"]
    components = schema["components"]["schemas"]

    parameter = next(p for p in detail["parameters"] if p["name"] == "seed")
    assert parameter["schema"]["type"] == "string"
    assert parameter["schema"]["pattern"] == "^[0-9]{1,19}$"
    for component, field in [
        ("VariantOut", "seed"),
        ("AnswerOut", "variant_seed"),
        ("RevealOut", "variant_seed"),
    ]:
        shape = components[component]["properties"][field]
        assert (shape["type"], shape["pattern"], shape["nullable"]) == (
            "string",
            "^[0-9]{1,19}$",
            True,
        ), component
