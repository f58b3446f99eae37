"""Input a hostile or broken client sends: NUL characters anywhere text reaches the database,
bodies nested far too deep. Each is a 400 problem naming what is wrong, and nothing is written."""

import json

import pytest

from classrooms.models import Assignment, Classroom, Membership
from course.models import Report
from reviews.models import Answer
from tests.conftest import assert_problem
from tests.factories import (
    PASSWORD,
    ClassroomFactory,
    CourseFactory,
    LessonFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

NUL = "\x00"


@pytest.fixture
def world(api):
    course = CourseFactory(slug="transformers")
    lesson = LessonFactory(course=course, slug="attention")
    question = QuestionFactory(lesson=lesson, kind="numeric")
    classroom = ClassroomFactory(course=course)
    api.authenticate(classroom.teacher)
    return {"classroom": classroom.pk, "question": question.pk}


DUE = "2030-01-01T09:00:00Z"
REVIEW = {"client_id": "8c5e7a4e-5f0b-4d43-9a47-0c1d2b3e4f50", "reviewed_at": DUE}
BODIES = [
    ("/classrooms/", {"name": "Evening", "course": f"trans{NUL}formers"}, "course"),
    ("/classrooms/", {"name": f"Even{NUL}ing", "course": "transformers"}, "name"),
    ("/reports/", {"lesson": f"attention{NUL}", "message": "A typo."}, "lesson"),
    ("/reports/", {"lesson": "attention", "message": f"A{NUL}typo."}, "message"),
    (
        "/classrooms/{classroom}/assignments/",
        {"title": "Read it", "lesson": f"{NUL}attention", "due_at": DUE},
        "lesson",
    ),
    ("/classrooms/join/", {"join_code": f"ABCD{NUL}EFGH"}, "join_code"),
    ("/questions/{question}/answers/", {"response": f"8{NUL}"}, "response"),
    (
        "/reviews/sync/",
        {"reviews": [{**REVIEW, "question": "{question}", "response": f"8{NUL}"}]},
        "reviews.0.response",
    ),
    ("/reports/", {f"mess{NUL}age": "A typo.", "lesson": "attention"}, "mess\\u0000age"),
    ("/auth/login/", {"username": f"ada{NUL}", "password": PASSWORD}, "username"),
]


def _filled(value, world):
    text = json.dumps(value).replace('"{question}"', str(world["question"]))
    return json.loads(text.replace("{classroom}", str(world["classroom"])))


@pytest.mark.parametrize(("path", "body", "field"), BODIES, ids=[f for _, _, f in BODIES])
def test_a_nul_character_in_a_body_is_a_400_naming_the_field(api, world, path, body, field):
    path = "/api/v1" + path.format(**world)

    response = api.post(path, _filled(body, world))

    problem = assert_problem(response, 400, field=field)
    assert problem["errors"][0]["code"] == "null_characters_not_allowed"
    assert not Report.objects.exists()
    assert not Answer.objects.exists()
    assert not Assignment.objects.exists()
    assert Classroom.objects.count() == 1
    assert not Membership.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (
            {"reviews": [{**REVIEW, "question": 1, "self_rating": "good\ud800"}]},
            "reviews.0.self_rating",
        ),
        ({"reviews": [{**REVIEW, "question": 1, "\udfff": "x"}]}, "reviews.0.\\udfff"),
    ],
)
def test_an_unpaired_surrogate_is_refused_naming_the_field(api, world, body, field):
    # The replay of a keyed request stores its response, errors quoting the input and all.
    response = api.post("/api/v1/reviews/sync/", body, headers={"Idempotency-Key": "sync-1"})

    problem = assert_problem(response, 400, field=field)
    assert problem["errors"][0]["code"] == "surrogate_characters_not_allowed"
    assert not Answer.objects.exists()


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("PATCH", "/api/v1/me/", {"timezone": f"UTC{NUL}"}, "timezone"),
        ("POST", "/api/v1/notifications/read/", {"ids": [1], f"x{NUL}": 1}, "x\\u0000"),
        ("DELETE", "/api/v1/me/", {"password": f"{PASSWORD}{NUL}"}, "password"),
    ],
)
def test_a_nul_character_is_refused_whatever_the_method(api, method, path, body, field):
    user = UserFactory()
    api.authenticate(user)

    response = api.request(method, path, json=body)

    assert_problem(response, 400, field=field)
    user.refresh_from_db()
    assert user.timezone == "UTC"


def test_registering_with_a_nul_character_creates_nobody(api):
    response = api.anonymous().post(
        "/api/v1/auth/register/", {"username": f"ada{NUL}", "password": PASSWORD}
    )

    assert_problem(response, 400, field="username")


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/api/v1/questions/?lesson=atten%00tion", "lesson"),
        ("/api/v1/questions/?search=%00", "search"),
        ("/api/v1/cards/?lesson=%00", "lesson"),
        ("/api/v1/glossary/?search=a%00", "search"),
        ("/api/v1/glossary/?course=%00", "course"),
        ("/api/v1/reviews/queue/?lesson=%00", "lesson"),
        ("/api/v1/labs/neuron/?w=1%00&b=0&x=1", "w"),
    ],
)
def test_a_nul_character_in_a_query_is_a_400_naming_the_parameter(api, world, path, field):
    response = api.get(path)

    assert_problem(response, 400, field=field)


@pytest.mark.parametrize("key", [f"abc{NUL}def", "abc\xffdef"])
def test_a_token_that_is_not_text_is_refused_as_unauthenticated(api, key):
    response = api.get("/api/v1/me/", headers={"Authorization": f"Token {key}"})

    assert_problem(response, 401)


@pytest.mark.parametrize("depth", [33, 1_000, 100_000])
@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_a_body_nested_too_deep_is_refused_as_malformed(api, world, depth, opener):
    closer = "]" if opener == "[" else "}"
    body = '{"message": ' + opener * depth + "1" + closer * depth + "}"

    response = api.post("/api/v1/reports/", data=body, headers={"Content-Type": "application/json"})

    problem = assert_problem(response, 400)
    assert "malformed-request" in problem["type"]
    assert "nested" in problem["detail"]
    assert not Report.objects.exists()


def test_brackets_inside_strings_do_not_count_as_nesting(api, world):
    message = "[{" * 500 + '\\"' * 100

    response = api.post("/api/v1/reports/", {"lesson": "attention", "message": message})

    assert response.status_code == 201, response.text


@pytest.mark.parametrize("number", [str(2**63 - 1), str(2**63), "9" * 40])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/questions/{}/"),
        ("POST", "/api/v1/questions/{}/answers/"),
        ("GET", "/api/v1/answers/{}/"),
        ("POST", "/api/v1/cards/{}/suspend/"),
        ("GET", "/api/v1/classrooms/{}/progress/"),
    ],
)
def test_an_id_past_64_bits_in_a_path_is_a_404(api, world, number, method, path):
    response = api.request(method, path.format(number), json={})

    assert_problem(response, 404)
