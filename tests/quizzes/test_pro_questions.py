"""A question is Pro when the section it follows is: a learner without Pro never sees one (in a
list, the queue, a lesson or stats), opens one or answers one; a Pro learner gets them all."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from config.problem_types import type_uri
from course.models import Access
from reviews.models import Answer, Card
from tests.conftest import assert_problem
from tests.factories import (
    ChoiceFactory,
    CourseFactory,
    LessonFactory,
    QuestionFactory,
    SectionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def block():
    """A Pro lesson whose first section is free, with a question after each section."""
    lesson = LessonFactory(course=CourseFactory(slug="transformers"), access=Access.PRO)
    free = SectionFactory(lesson=lesson, slug="four-parts", position=1, access=Access.FREE)
    pro = SectionFactory(lesson=lesson, slug="layer-norm", position=2, access=Access.PRO)
    open_question = QuestionFactory(lesson=lesson, section=free, position=1)
    pro_question = QuestionFactory(lesson=lesson, section=pro, position=2)
    pro_choice = ChoiceFactory(
        question=QuestionFactory(
            lesson=lesson, section=pro, position=3, kind="single_choice", answer=None, mistakes=[]
        ),
        is_correct=True,
    )
    generated = QuestionFactory(
        lesson=lesson,
        section=pro,
        position=4,
        generator="layer_norm",
        answer=None,
        tolerance=None,
        mistakes=[],
    )
    return {
        "lesson": lesson,
        "open": open_question,
        "pro": [pro_question, pro_choice.question, generated],
        "choice": pro_choice,
    }


def listed_ids(api):
    body = api.get("/api/v1/questions/", params={"page_size": 100}).json()
    return {q["id"]: q["section"] for q in body["results"]}


def queued_ids(api):
    body = api.get("/api/v1/reviews/queue/", params={"limit": 100}).json()
    return {item["question"]["id"] for item in body["cards"]}


def test_a_free_learner_never_sees_a_pro_question_listed_queued_or_in_the_lesson(api, block):
    learner = UserFactory(plan=User.Plan.FREE)
    api.authenticate(learner)
    pro_ids = {q.pk for q in block["pro"]}
    # Cards they kept from a Pro plan they no longer have: one due, one new.
    Card.objects.create(
        user=learner, question=block["pro"][0], state="review", due=timezone.now(),
        stability=3.0, difficulty=5.0, last_review=timezone.now() - timedelta(days=3), seed=1,
    )  # fmt: skip

    lesson = api.get(f"/api/v1/lessons/{block['lesson'].slug}/").json()
    stats = api.get("/api/v1/stats/").json()

    assert listed_ids(api) == {block["open"].pk: "four-parts"}
    assert queued_ids(api) == {block["open"].pk}
    assert lesson["question_ids"] == [block["open"].pk]
    assert [s["question_ids"] for s in lesson["sections"]] == [[block["open"].pk], []]
    assert stats["new_available"] == 1
    assert not pro_ids & set(listed_ids(api))


@pytest.mark.parametrize("seed", [None, "7"])
def test_a_free_learner_opening_a_pro_question_gets_403_naming_the_plan(api, block, seed):
    api.authenticate(UserFactory(plan=User.Plan.FREE))

    for question in block["pro"]:
        response = api.get(
            f"/api/v1/questions/{question.pk}/", params={"seed": seed} if seed else None
        )
        body = assert_problem(response, 403)
        assert body["type"] == type_uri("pro-required")
        assert "Pro plan" in body["detail"]
        assert "variant" not in body
        assert "choices" not in body


def test_a_free_learner_answering_a_pro_question_gets_403_and_nothing_is_stored(api, block):
    learner = UserFactory(plan=User.Plan.FREE)
    api.authenticate(learner)
    numeric, choice, _ = block["pro"]

    typed = api.post(f"/api/v1/questions/{numeric.pk}/answers/", {"response": "8e6"})
    picked = api.post(
        f"/api/v1/questions/{choice.pk}/answers/",
        {"choice_ids": [block["choice"].pk], "mode": "practice"},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )

    for response in (typed, picked):
        body = assert_problem(response, 403)
        assert body["type"] == type_uri("pro-required")
        assert "explanation_html" not in response.text
        assert "correct_answer" not in body
    assert not Answer.objects.filter(user=learner).exists()
    assert (
        not Card.objects.filter(user=learner, question__in=block["pro"])
        .exclude(state="new")
        .exists()
    )


def test_an_offline_review_of_a_pro_question_is_refused_for_a_free_learner(api, block):
    learner = UserFactory(plan=User.Plan.FREE, date_joined=timezone.now() - timedelta(days=2))
    api.authenticate(learner)
    item = {
        "client_id": str(uuid.uuid4()),
        "question": block["pro"][0].pk,
        "reviewed_at": (timezone.now() - timedelta(hours=1)).isoformat(),
        "response": "8e6",
    }

    body = api.post("/api/v1/reviews/sync/", {"reviews": [item]}).json()

    assert body["results"][0]["status"] == "invalid"
    assert body["results"][0]["errors"][0]["code"] == "pro_required"
    assert not Answer.objects.filter(user=learner).exists()


def test_a_pro_learner_sees_opens_and_answers_every_question(api, block):
    api.authenticate(UserFactory(plan=User.Plan.PRO))
    every = {block["open"].pk, *(q.pk for q in block["pro"])}

    lesson = api.get(f"/api/v1/lessons/{block['lesson'].slug}/").json()
    queued = queued_ids(api)  # before answering: an answer buries the lesson's other questions
    answered = api.post(f"/api/v1/questions/{block['pro'][0].pk}/answers/", {"response": "8e6"})

    assert set(listed_ids(api)) == every
    assert listed_ids(api)[block["pro"][0].pk] == "layer-norm"
    assert queued == every
    assert set(lesson["question_ids"]) == every
    assert lesson["sections"][1]["question_ids"] == [q.pk for q in block["pro"]]
    assert api.get(f"/api/v1/questions/{block['pro'][2].pk}/").json()["variant"]["token"]
    assert answered.status_code == 201
    assert answered.json()["status"] == "correct"


def test_a_free_learner_may_open_and_answer_the_free_part_of_a_pro_lesson(api, block):
    api.authenticate(UserFactory(plan=User.Plan.FREE))

    detail = api.get(f"/api/v1/questions/{block['open'].pk}/")
    answered = api.post(f"/api/v1/questions/{block['open'].pk}/answers/", {"response": "8e6"})

    assert detail.json()["section"] == "four-parts"
    assert answered.status_code == 201


def test_anonymous_readers_see_only_the_free_sections_questions_of_a_lesson(api, block):
    lesson = api.anonymous().get(f"/api/v1/lessons/{block['lesson'].slug}/").json()

    assert lesson["question_ids"] == [block["open"].pk]
