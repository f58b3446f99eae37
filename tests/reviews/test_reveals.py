"""Looking at the answer first: free text in two steps (reveal, then rate), and "Show the answer"
on a machine-graded question, after which the next review counts as Again."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from engine import get_family
from quizzes.models import Question
from reviews.models import Answer, Card, Reveal
from tests.conftest import assert_problem
from tests.factories import (
    ChoiceFactory,
    ClassroomFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

MODEL = "<p>Two sublayers, each norm, sublayer, add.</p>"


@pytest.fixture
def learner(api):
    user = UserFactory(date_joined=timezone.now() - timedelta(days=30))
    api.authenticate(user)
    return user


def free_text():
    return QuestionFactory(
        kind=Question.Kind.FREE_TEXT, answer=None, mistakes=[], model_answer_html=MODEL
    )


def reveal(api, question, **body):
    return api.post(f"/api/v1/questions/{question.pk}/reveal/", body)


def answer(api, question, **body):
    return api.post(f"/api/v1/questions/{question.pk}/answers/", body)


def test_free_text_is_rated_after_the_model_answer_is_shown(api, learner):
    question = free_text()

    shown = reveal(api, question)
    rated = answer(api, question, response="norm, attention, add", self_rating="good",
                   reveal=shown.json()["id"])  # fmt: skip

    assert shown.status_code == 201, shown.text
    assert shown.json()["model_answer_html"] == MODEL
    assert rated.status_code == 201, rated.text
    assert (rated.json()["status"], rated.json()["review"]["rating"]) == ("self_graded", "good")
    stored = Answer.objects.get()
    assert stored.reveal == Reveal.objects.get(user=learner, question=question)
    assert Card.objects.get(user=learner, question=question).pending_reveal is None


@pytest.mark.parametrize("mode", ["review", "practice"])
def test_free_text_without_a_reveal_is_a_400_naming_it(api, learner, mode):
    question = free_text()

    refused = answer(api, question, response="attention", self_rating="easy", mode=mode)

    assert_problem(refused, 400, field="reveal")
    assert Answer.objects.count() == 0


def test_someone_elses_reveal_or_another_questions_is_refused(api, other_api, learner):
    question, other_question = free_text(), free_text()
    other_api.authenticate(UserFactory())
    theirs = reveal(other_api, question).json()["id"]
    elsewhere = reveal(api, other_question).json()["id"]

    for mode in ("review", "practice"):
        for reveal_id in (theirs, elsewhere, 2**63 - 1):
            refused = answer(api, question, response="x", self_rating="easy", reveal=reveal_id,
                             mode=mode)  # fmt: skip
            assert_problem(refused, 400, field="reveal")
    assert Answer.objects.count() == 0


def test_a_reveal_is_followed_by_one_review(api, learner):
    question = free_text()
    shown = reveal(api, question).json()["id"]
    answer(api, question, response="norm first", self_rating="good", reveal=shown)

    again = answer(api, question, response="norm first", self_rating="easy", reveal=shown)
    practised = answer(api, question, response="norm first", self_rating="easy", reveal=shown,
                       mode="practice")  # fmt: skip

    assert_problem(again, 400, field="reveal")
    assert practised.status_code == 201, practised.text
    assert Card.objects.get(user=learner, question=question).reps == 1


def test_an_empty_answer_rated_easy_is_again(api, learner):
    question = free_text()

    for typed in ("", "   \n"):
        shown = reveal(api, question).json()["id"]
        body = answer(api, question, response=typed, self_rating="easy", reveal=shown).json()
        assert (body["score"], body["review"]["rating"]) == (0.0, "again"), typed


def test_a_self_rating_never_lifts_a_wrong_answer(api, learner):
    question = QuestionFactory()
    right = ChoiceFactory(is_correct=True)
    ChoiceFactory(question=right.question)

    wrong = answer(api, question, response="4e6", self_rating="easy").json()
    picked = answer(api, right.question, choice_ids=[right.pk + 1], self_rating="good").json()

    assert (wrong["status"], wrong["review"]["rating"]) == ("incorrect", "again")
    assert (picked["status"], picked["review"]["rating"]) == ("incorrect", "again")


def generated():
    return QuestionFactory(generator="relu_neuron", answer=None, tolerance=None, mistakes=[])


def test_showing_a_variants_answer_makes_the_next_review_of_it_again(api, other_api, learner):
    question = generated()
    classroom = ClassroomFactory(course=question.lesson.course)
    MembershipFactory(classroom=classroom, user=learner)
    variant = api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]
    expected = get_family("relu_neuron").variant(int(variant["seed"]))

    shown = reveal(api, question, variant=variant["token"]).json()
    body = answer(api, question, response=shown["correct_answer"], variant=variant["token"]).json()

    assert (shown["correct_answer"], shown["solution_steps"]) == (
        expected.correct_answer,
        expected.solution_steps,
    )
    assert shown["variant_seed"] == variant["seed"]
    assert (body["mode"], body["status"], body["score"]) == ("review", "incorrect", 0.0)
    assert body["review"]["rating"] == "again"
    assert body["notice"]["code"] == "answer_revealed"
    other_api.authenticate(classroom.teacher)
    items = other_api.get(f"/api/v1/classrooms/{classroom.pk}/items/").json()["results"]
    progress = other_api.get(f"/api/v1/classrooms/{classroom.pk}/progress/").json()
    assert [(i["answers"], i["facility"]) for i in items] == [(1, None)]
    assert progress["learners"][0]["accuracy"] == 0.0


def test_the_review_after_a_reveal_is_again_even_with_a_fresh_variant_and_only_once(api, learner):
    question = generated()
    looked = api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]
    reveal(api, question, variant=looked["token"])

    fresh = [api.get(f"/api/v1/questions/{question.pk}/").json()["variant"] for _ in range(2)]
    ratings = []
    for variant in fresh:
        right = get_family("relu_neuron").variant(int(variant["seed"])).correct_answer
        body = answer(api, question, response=right, variant=variant["token"]).json()
        ratings.append(body["review"]["rating"])

    assert ratings == ["again", "good"]


def test_practice_does_not_use_up_a_reveal(api, learner):
    question = QuestionFactory()
    reveal(api, question)

    practised = answer(api, question, response="8e6", mode="practice").json()
    reviewed = answer(api, question, response="8e6").json()

    assert (practised["mode"], practised["notice"]) == ("practice", None)
    assert (reviewed["review"]["rating"], reviewed["notice"]["code"]) == (
        "again",
        "answer_revealed",
    )


def test_undoing_the_review_after_a_reveal_leaves_the_reveal_waiting(api, learner):
    question = QuestionFactory()
    reveal(api, question)
    answer(api, question, response="8e6")

    undone = api.post("/api/v1/reviews/undo/")
    again = answer(api, question, response="8e6").json()

    assert undone.status_code == 200, undone.text
    assert (again["review"]["rating"], again["notice"]["code"]) == ("again", "answer_revealed")


def test_a_synced_review_after_a_reveal_counts_as_again(api, learner):
    question, written = QuestionFactory(), free_text()
    reveal(api, question)
    shown = reveal(api, written).json()["id"]
    at = timezone.now() - timedelta(minutes=5)

    def item(q, **extra):
        return {"client_id": str(uuid.uuid4()), "question": q.pk, "reviewed_at": at.isoformat(),
                **extra}  # fmt: skip

    results = api.post(
        "/api/v1/reviews/sync/",
        {
            "reviews": [
                item(question, response="8e6"),
                item(written, response="norm", self_rating="good", reveal=shown),
                item(written, response="norm", self_rating="good", reveal=shown),
                item(written, response="norm", self_rating="good"),
            ]
        },
    ).json()["results"]

    assert [(r["status"], r.get("rating")) for r in results] == [
        ("applied", "again"),
        ("applied", "good"),
        ("invalid", None),
        ("invalid", None),
    ]
    assert results[0]["notice"]["code"] == "answer_revealed"
    assert [r["errors"][0]["field"] for r in results[2:]] == ["reveal", "reveal"]


def test_a_generated_question_is_revealed_only_for_a_variant_of_the_learners(
    api, other_api, learner
):
    question = generated()
    other_api.authenticate(UserFactory())
    theirs = other_api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]["token"]

    assert_problem(reveal(api, question), 400, field="variant")
    assert_problem(reveal(api, question, variant=theirs), 400, field="variant")
    assert_problem(reveal(api, question, variant="x" * 501), 400, field="variant")
    assert Reveal.objects.count() == 0


def test_a_choice_questions_reveal_shows_the_verdicts_in_the_order_served(api, learner):
    right = ChoiceFactory(is_correct=True)
    for _ in range(3):
        ChoiceFactory(question=right.question)
    served = api.get(f"/api/v1/questions/{right.question.pk}/").json()

    shown = reveal(api, right.question, variant=served["variant"]["token"]).json()

    assert [c["id"] for c in shown["choices"]] == [c["id"] for c in served["choices"]]
    assert [c["id"] for c in shown["choices"] if c["correct"]] == [right.pk]
    assert shown["correct_answer"] == right.text_markdown


def test_unknown_archived_and_anonymous_reveals_are_refused(api, learner):
    archived = QuestionFactory(archived_at=timezone.now())

    assert_problem(api.post("/api/v1/questions/999999/reveal/", {}), 404)
    assert_problem(reveal(api, archived), 404)
    assert_problem(reveal(api.anonymous(), QuestionFactory()), 401)
    assert Reveal.objects.count() == 0


def test_reveals_are_in_the_learners_export(api, learner):
    question = generated()
    variant = api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]
    reveal(api, question, variant=variant["token"])

    exported = api.get("/api/v1/me/export/").json()

    assert [(r["question"], r["variant_seed"]) for r in exported["reveals"]] == [
        (question.key, variant["seed"])
    ]
