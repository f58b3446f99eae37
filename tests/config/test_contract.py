"""The OpenAPI schema is a contract clients are generated from: valid OpenAPI 3.0 for strict
validators, errors always problem documents, one enum per concept, names a person would use;
and what the service really sends, over a whole learner's journey, matches it."""

import json
import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.utils import timezone
from openapi_core import Config, OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse
from openapi_spec_validator import validate

from tests.conftest import assert_problem
from tests.factories import (
    PASSWORD,
    ChoiceFactory,
    CourseFactory,
    GlossaryTermFactory,
    LessonFactory,
    QuestionFactory,
    SectionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

PROBLEM = {"$ref": "#/components/schemas/Problem"}


@pytest.fixture(scope="module")
def schema():
    # The checked-in file clients are generated from; tests/config/test_schema.py holds it to
    # what the code serves.
    return yaml.safe_load((Path(settings.BASE_DIR) / "openapi.yaml").read_text())


def operations(schema):
    return [
        (f"{method.upper()} {path}", operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    ]


def property_of(schema, component, name):
    return schema["components"]["schemas"][component]["properties"][name]


def test_the_schema_is_valid_openapi_3_0(schema):
    validate(schema)


def problem_parts(content):
    """An error's problem+json schema and, when it extends the Problem, what it is made of."""
    schema = content["application/problem+json"]["schema"]
    return [schema, *schema.get("allOf", [])]


def test_every_error_response_is_a_problem_document(schema):
    errors = {
        (name, code): response.get("content", {})
        for name, operation in operations(schema)
        for code, response in operation["responses"].items()
        if int(code) >= 400
    }

    not_problems = {
        key: content
        for key, content in errors.items()
        if list(content) != ["application/problem+json"] or PROBLEM not in problem_parts(content)
    }
    assert not not_problems
    for idempotent in (
        "POST /api/v1/questions/{question_id}/answers/",
        "POST /api/v1/reviews/sync/",
    ):
        assert {(idempotent, "409"), (idempotent, "422")} <= set(errors)


def test_success_responses_are_json_alone(schema):
    types = {
        (name, code): sorted(response.get("content", {}))
        for name, operation in operations(schema)
        for code, response in operation["responses"].items()
        if int(code) < 400
    }

    spreadsheet = ("GET /api/v1/classrooms/{classroom_id}/progress/", "200")
    assert types.pop(spreadsheet) == ["application/json", "text/csv"]
    assert {tuple(found) for found in types.values()} == {("application/json",), ()}


def test_errors_that_ask_to_wait_say_how_long(schema):
    waits = [
        response["headers"]["Retry-After"]
        for _, operation in operations(schema)
        for code, response in operation["responses"].items()
        if code in {"429", "503"}
    ]

    assert len(waits) == 2 * len(operations(schema))
    assert all(wait == {"$ref": "#/components/headers/RetryAfter"} for wait in waits)


def test_deleting_the_account_documents_its_password_body(schema):
    body = schema["paths"]["/api/v1/me/"]["delete"]["requestBody"]

    assert body["required"] is True
    reference = body["content"]["application/json"]["schema"]["$ref"]
    password = schema["components"]["schemas"][reference.split("/")[-1]]
    assert password["required"] == ["password"]


def test_the_email_given_at_sign_up_has_no_invalid_default(schema):
    email = property_of(schema, "RegisterRequest", "email")

    assert all("default" not in choice for choice in email["oneOf"])


def test_a_plan_and_a_lessons_access_are_separate_enums(schema):
    enums = schema["components"]["schemas"]

    assert property_of(schema, "User", "plan")["allOf"] == [
        {"$ref": "#/components/schemas/PlanEnum"}
    ]
    for component in ("CourseLesson", "LessonDetail"):
        access = property_of(schema, component, "access")
        assert access == {"$ref": "#/components/schemas/LessonAccessEnum"}
    assert enums["PlanEnum"]["enum"] == enums["LessonAccessEnum"]["enum"] == ["free", "pro"]
    assert "TierEnum" not in enums


def test_a_cards_state_is_one_enum_wherever_it_is_sent(schema):
    card_state = {"$ref": "#/components/schemas/CardStateEnum"}

    for component in ("Card", "ReviewSummary", "QueueItem"):
        assert property_of(schema, component, "state") == card_state, component
    card_states = {"new", "learning", "review", "relearning"}
    enums = schema["components"]["schemas"].items()
    assert [name for name, e in enums if set(e.get("enum", [])) == card_states] == ["CardStateEnum"]


def test_a_card_lists_every_field_it_sends_as_required(schema):
    card = schema["components"]["schemas"]["Card"]

    assert sorted(card["required"]) == sorted(card["properties"])


def test_pages_always_send_next_and_previous(schema):
    pages = {n: c for n, c in schema["components"]["schemas"].items() if n.startswith("Paginated")}
    cards = pages.pop("PaginatedCardList")

    assert pages
    for name, page in pages.items():
        assert sorted(page["required"]) == ["count", "next", "previous", "results"], name
    # The card list also reads on from a cursor, and says the next one on every page.
    assert sorted(cards["required"]) == ["count", "next", "next_cursor", "previous", "results"]


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        ("/api/v1/questions/", "interview"),
        ("/api/v1/cards/", "suspended"),
        ("/api/v1/cards/", "leech"),
        ("/api/v1/notifications/", "unread"),
    ],
)
def test_boolean_filters_are_documented_as_booleans(schema, path, parameter):
    (documented,) = [
        p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == parameter
    ]

    assert documented["schema"] == {"type": "boolean"}


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        ("/api/v1/questions/", "interview"),
        ("/api/v1/cards/", "suspended"),
        ("/api/v1/cards/", "leech"),
        ("/api/v1/notifications/", "unread"),
    ],
)
def test_boolean_filters_take_true_or_false_and_nothing_else(api, path, parameter):
    api.authenticate(UserFactory())

    answered = [api.get(f"{path}?{parameter}={value}") for value in ("true", "false")]
    refused = [api.get(f"{path}?{parameter}={value}") for value in ("yes", "1", "True", "")]

    assert [r.status_code for r in answered] == [200, 200]
    for response in refused:
        assert_problem(response, 400, field=parameter)


def test_operation_ids_are_what_a_person_would_call_them(schema):
    ids = [operation["operationId"] for _, operation in operations(schema)]

    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", name) for name in ids), ids
    expected = {
        "listQuestions",
        "getQuestion",
        "submitAnswer",
        "syncReviews",
        "getReviewQueue",
        "undoReview",
        "listCards",
        "suspendCard",
        "deleteAccount",
        "joinClassroom",
    }
    assert expected <= set(ids)


def test_search_parameters_are_documented_as_text(schema):
    for path in ("/api/v1/questions/", "/api/v1/glossary/"):
        (search,) = [p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == "search"]
        assert search["schema"]["type"] == "string", path


# --- a learner's journey, recorded and held to the schema -------------------------------------


class Recorder:
    """Sends requests through the test's client and keeps each exchange, as sent and received."""

    def __init__(self, api):
        self.api = api
        self.exchanges = []

    def __call__(self, method, path, status, **kwargs):
        response = self.api.request(method, path, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        self.exchanges.append(response)
        return response.json() if response.content else None


def learner_journey(call, content):
    """What an app does for one learner, start to finish, including the errors it meets."""
    registered = call(
        "POST",
        "/api/v1/auth/register/",
        201,
        json={"username": "journey", "password": PASSWORD, "email": "journey@example.com"},
    )
    call("POST", "/api/v1/auth/register/", 400, json={"username": "journey", "password": "x"})
    signed_in = call(
        "POST", "/api/v1/auth/login/", 200, json={"username": "journey", "password": PASSWORD}
    )
    assert signed_in["user"]["id"] == registered["user"]["id"]
    call("GET", "/api/v1/me/", 401, headers={"Authorization": "Token not-a-token"})
    call.api.session.headers["Authorization"] = f"Token {signed_in['token']}"
    call("GET", "/api/v1/me/", 200)
    call("PATCH", "/api/v1/me/", 200, json={"timezone": "Europe/Berlin", "reminder_hour": 8})
    call("GET", "/api/v1/courses/", 200)
    call("GET", "/api/v1/courses/transformers/", 200)
    call("GET", "/api/v1/courses/no-such-course/", 404)
    call("GET", "/api/v1/lessons/neurons/", 200)
    call("GET", "/api/v1/lessons/attention/", 200)
    call("POST", "/api/v1/lessons/neurons/complete/", 200)
    call("POST", "/api/v1/lessons/attention/complete/", 403)
    call("GET", "/api/v1/glossary/?search=term", 200)
    call("GET", "/api/v1/questions/?interview=false&kind=numeric", 200)
    numeric, choice = content["numeric"], content["choice"]
    call("GET", f"/api/v1/questions/{numeric}/", 200)
    call("GET", f"/api/v1/questions/{choice}/", 200)
    right = call(
        "POST", f"/api/v1/questions/{numeric}/answers/", 201, json={"response": "8 million"}
    )
    assert (right["misconception"], right["review"]["state"]) == (None, "learning")
    practice = call(
        "POST",
        f"/api/v1/questions/{numeric}/answers/",
        201,
        json={"response": "4,000,000", "mode": "practice"},
    )
    assert (practice["misconception"]["code"], practice["review"]) == ("one_matrix", None)
    call("POST", f"/api/v1/questions/{numeric}/answers/", 422, json={"response": "lots of weights"})
    key = {"Idempotency-Key": str(uuid.uuid4())}
    picked = {"choice_ids": [content["right_choice"]]}
    call("POST", f"/api/v1/questions/{choice}/answers/", 201, json=picked, headers=key)
    call("POST", f"/api/v1/questions/{choice}/answers/", 201, json=picked, headers=key)
    call("POST", f"/api/v1/questions/{choice}/answers/", 422, json={"choice_ids": []}, headers=key)
    call("GET", "/api/v1/reviews/queue/?limit=5", 200)
    review = {
        "client_id": str(uuid.uuid4()),
        "question": content["offline"],
        "reviewed_at": (timezone.now() - timedelta(minutes=1)).isoformat(),
        "response": "8000000",
    }
    # The second is well formed but names no question: refused on its own, in the 200.
    unknown = {**review, "client_id": str(uuid.uuid4()), "question": 2**62}
    call("POST", "/api/v1/reviews/sync/", 200, json={"reviews": [review, unknown]})
    undone = call("POST", "/api/v1/reviews/undo/", 200)
    assert undone["card"] is None
    cards = call("GET", "/api/v1/cards/?suspended=false&leech=false", 200)
    card = cards["results"][0]["id"]
    call("POST", f"/api/v1/cards/{card}/suspend/", 200)
    call("POST", f"/api/v1/cards/{card}/unsuspend/", 200)
    call("POST", f"/api/v1/cards/{card}/forget/", 200)
    call("POST", "/api/v1/cards/999999/forget/", 404)
    call("GET", "/api/v1/stats/?days=30", 200)
    call("GET", "/api/v1/notifications/?unread=true", 200)
    call("POST", "/api/v1/notifications/read/", 200, json={})
    call("POST", "/api/v1/reports/", 201, json={"lesson": "neurons", "message": "A typo."})
    call("POST", "/api/v1/reports/", 400, json={"message": "Which lesson?"})
    room = call(
        "POST", "/api/v1/classrooms/", 201, json={"name": "Evening", "course": "transformers"}
    )
    rooms = f"/api/v1/classrooms/{room['id']}"
    call("GET", "/api/v1/classrooms/", 200)
    call("GET", f"{rooms}/", 200)
    call("PATCH", f"{rooms}/", 200, json={"name": "Evening group"})
    call("POST", "/api/v1/classrooms/join/", 400, json={"join_code": room["join_code"]})
    call("POST", f"{rooms}/rotate-code/", 200)
    call("GET", f"{rooms}/members/", 200)
    call("GET", f"{rooms}/items/", 200)
    call("GET", f"{rooms}/progress/", 200)
    assignment = {"title": "Read it", "lesson": "neurons", "due_at": "2030-01-01T09:00:00Z"}
    call("POST", f"{rooms}/assignments/", 201, json=assignment)
    call("GET", f"{rooms}/assignments/", 200)
    call("DELETE", f"{rooms}/", 204)
    call("GET", "/api/v1/labs/neuron/?w=1,1&b=-1&x=0.5,0.9", 200)
    call("GET", "/api/v1/labs/parameters/?d_model=512", 200)
    call("GET", "/api/v1/labs/near-orthogonal/?dims=10&vectors=20&seed=3", 200)
    call("GET", "/api/v1/me/export/", 200)
    call("GET", "/api/v1/health/", 200)
    call("DELETE", "/api/v1/me/", 400, json={"password": "not it"})
    call("DELETE", "/api/v1/me/", 204, json={"password": PASSWORD})


@pytest.fixture
def content():
    course = CourseFactory(slug="transformers")
    neurons = LessonFactory(course=course, slug="neurons", number=1)
    attention = LessonFactory(course=course, slug="attention", number=2, access="pro")
    SectionFactory(lesson=neurons)
    SectionFactory(lesson=attention, access="pro")
    GlossaryTermFactory(course=course, lesson=neurons, term="A term")
    numeric = QuestionFactory(lesson=neurons)
    right = ChoiceFactory(question__lesson=neurons, is_correct=True)
    ChoiceFactory(question=right.question)
    return {
        "numeric": numeric.pk,
        "choice": right.question.pk,
        "right_choice": right.pk,
        "offline": QuestionFactory(lesson=neurons).pk,
    }


def test_every_exchange_of_a_learners_journey_matches_the_schema(api, schema, content):
    call = Recorder(api)

    learner_journey(call, content)

    # Problem documents are JSON; openapi-core reads only a few JSON media types by name.
    problems_as_json = Config(
        extra_media_type_deserializers={"application/problem+json": json.loads}
    )
    contract = OpenAPI.from_dict(schema, config=problems_as_json)
    mismatches = []
    for response in call.exchanges:
        request = RequestsOpenAPIRequest(response.request)
        found = [
            *contract.request_validator.iter_errors(request),
            *contract.response_validator.iter_errors(request, RequestsOpenAPIResponse(response)),
        ]
        mismatches += [
            (response.request.method, response.request.url, repr(e), repr(e.__cause__))
            for e in found
        ]
    assert len(call.exchanges) > 50
    assert not mismatches
