"""Browsing the question bank: filters, details, variants that repeat by seed."""

import pytest

from config.throttles import ScopedRateThrottle
from quizzes.models import Question
from tests.conftest import assert_problem
from tests.factories import ChoiceFactory, LessonFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


def test_the_list_filters_by_lesson_topic_kind_difficulty_and_interview(api, learner):
    lesson = LessonFactory(slug="attention")
    asked = QuestionFactory(lesson=lesson, topic="attention", difficulty=3, interview=True)
    QuestionFactory(topic="mlp", difficulty=3)
    QuestionFactory(lesson=lesson, topic="attention", difficulty=1)

    body = api.get(
        "/api/v1/questions/",
        params={"lesson": "attention", "topic": "attention", "difficulty": 3, "interview": "true"},
    ).json()

    assert [q["id"] for q in body["results"]] == [asked.pk]
    assert body["results"][0]["lesson"] == "attention"


def test_the_list_searches_prompts(api, learner):
    QuestionFactory(prompt_markdown="Why divide by the square root of d?", key="scaling")
    QuestionFactory(prompt_markdown="What does the MLP store?")

    body = api.get("/api/v1/questions/", params={"search": "square root"}).json()

    assert [q["key"] for q in body["results"]] == ["scaling"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"topic": "astrology"}, "topic"),
        ({"kind": "essay"}, "kind"),
        ({"difficulty": 9}, "difficulty"),
        ({"interview": "perhaps"}, "interview"),
        ({"generator": "nope"}, "generator"),
        ({"search": "x" * 101}, "search"),
        ({"topic": ""}, "topic"),
    ],
)
def test_bad_filters_are_400_naming_the_parameter(api, learner, params, field):
    assert_problem(api.get("/api/v1/questions/", params=params), 400, field=field)


def test_a_generated_question_brings_a_fresh_variant_each_time(api, learner):
    question = QuestionFactory(generator="relu_neuron", answer=None, tolerance=None, mistakes=[])

    first = api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]
    second = api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]
    seeded = api.get(f"/api/v1/questions/{question.pk}/", params={"seed": first["seed"]}).json()

    assert first["seed"] != second["seed"]
    assert seeded["variant"]["data"] == first["data"]
    assert set(first["data"]) >= {"w", "b", "x"}
    assert first["prompt_html"].startswith("<p>")


def test_choice_questions_list_their_choices_without_verdicts(api, learner):
    right = ChoiceFactory(is_correct=True)
    ChoiceFactory(question=right.question)

    body = api.get(f"/api/v1/questions/{right.question.pk}/").json()

    assert [set(c) for c in body["choices"]] == [{"id", "text_html"}] * 2
    # The order they are shown in travels in a token, and nothing else.
    assert (body["variant"]["seed"], body["variant"]["data"]) == (None, {})
    assert body["variant"]["token"]


def test_archived_and_unknown_questions_are_404(api, learner):
    archived = QuestionFactory(archived_at="2026-01-01T00:00:00Z")

    assert_problem(api.get(f"/api/v1/questions/{archived.pk}/"), 404)
    assert_problem(api.get("/api/v1/questions/999999/"), 404)


def test_the_bank_needs_an_account(api):
    assert_problem(api.get("/api/v1/questions/"), 401)


def test_answers_are_throttled_per_learner(api, learner, monkeypatch):

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "answers", "3/min")
    question = QuestionFactory()
    url = f"/api/v1/questions/{question.pk}/answers/"

    statuses = [api.post(url, {"response": "8e6"}).status_code for _ in range(4)]

    assert statuses == [201, 201, 201, 429]
    assert Question.objects.get().answers.count() == 3
