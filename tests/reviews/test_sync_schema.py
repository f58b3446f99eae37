"""The sync's items and results have their real shape in the OpenAPI schema, and a sync's
response, with every kind of result, has the fields the schema says (schemathesis checks the
values of every operation's responses)."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def component(schema, shape):
    """The component a property refers to, directly or as the one part of an `allOf`."""
    ref = shape["$ref"] if "$ref" in shape else shape["allOf"][0]["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def test_each_item_of_a_sync_has_its_fields_in_the_schema(schema):
    body = schema["paths"]["/api/v1/reviews/sync/"]["post"]["requestBody"]
    envelope = component(schema, body["content"]["application/json"]["schema"])

    reviews = envelope["properties"]["reviews"]
    item = component(schema, reviews["items"])

    assert (reviews["type"], reviews["minItems"], reviews["maxItems"]) == ("array", 1, 1000)
    assert set(item["required"]) == {"client_id", "question", "reviewed_at"}
    assert item["properties"]["client_id"] == {"type": "string", "format": "uuid"}
    assert item["properties"]["reviewed_at"]["format"] == "date-time"
    assert item["properties"]["question"]["type"] == "integer"
    assert item["properties"]["choice_ids"]["items"]["type"] == "integer"
    assert item["properties"]["reveal"]["type"] == "integer"
    assert item["properties"]["response"]["maxLength"] == 2000


def test_each_result_and_its_errors_are_typed(schema):
    responses = schema["paths"]["/api/v1/reviews/sync/"]["post"]["responses"]
    out = component(schema, responses["200"]["content"]["application/json"]["schema"])

    result = component(schema, out["properties"]["results"]["items"])
    error = component(schema, result["properties"]["errors"]["items"])
    feedback = component(schema, result["properties"]["feedback"])

    assert set(error["properties"]) == {"field", "code", "message"}
    assert error["properties"]["field"]["nullable"] is True
    assert {"status", "score", "misconception", "correct_answer", "solution_steps"} <= set(
        feedback["properties"]
    )


def test_a_sync_with_every_kind_of_result_answers_as_the_schema_says(api, schema):
    learner = UserFactory(date_joined=timezone.now() - timedelta(days=30))
    api.authenticate(learner)
    question = QuestionFactory()
    at = timezone.now() - timedelta(hours=1)
    good = {
        "client_id": str(uuid.uuid4()),
        "question": question.pk,
        "reviewed_at": at.isoformat(),
        "response": "4e6",
    }
    api.post("/api/v1/reviews/sync/", {"reviews": [good]})
    items = [
        good,
        {**good, "client_id": str(uuid.uuid4())},
        {**good, "client_id": str(uuid.uuid4()), "response": "eight"},
        {**good, "client_id": "nope", "question": "seven"},
        None,
        [],
    ]

    response = api.post("/api/v1/reviews/sync/", {"reviews": items})

    assert [r["status"] for r in response.json()["results"]] == [
        "duplicate",
        "applied",
        "invalid",
        "invalid",
        "invalid",
        "invalid",
    ]
    responses = schema["paths"]["/api/v1/reviews/sync/"]["post"]["responses"]
    out = component(schema, responses["200"]["content"]["application/json"]["schema"])
    result = component(schema, out["properties"]["results"]["items"])
    error = component(schema, result["properties"]["errors"]["items"])
    feedback = component(schema, result["properties"]["feedback"])
    results = response.json()["results"]
    assert all(set(result["required"]) <= set(r) <= set(result["properties"]) for r in results)
    assert {frozenset(e) for r in results for e in r.get("errors", [])} == {
        frozenset(error["required"])
    }
    assert set(results[1]["feedback"]) == set(feedback["properties"]) == set(feedback["required"])
