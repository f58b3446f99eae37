"""Review mode counts only what the server chose for the learner, once.

A seed the learner picks (`?seed=`) reproduces a variant whose answer they may have read, and a
token answered before has shown its answer: answers to either count as practice, for the
learner's schedule and for every number a teacher reads.
"""

import threading
import uuid
from datetime import timedelta

import pytest
from django.core import signing
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import get_family
from reviews.models import Answer, Card
from tests.conftest import Api, assert_problem
from tests.factories import (
    AssignmentFactory,
    ClassroomFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    user = UserFactory(date_joined=timezone.now() - timedelta(days=90))
    api.authenticate(user)
    return user


def generated_question(**extra):
    return QuestionFactory(
        generator="relu_neuron", answer=None, tolerance=None, mistakes=[], **extra
    )


def served(api, question, **params):
    return api.get(f"/api/v1/questions/{question.pk}/", params=params).json()["variant"]


def answer(api, question, **body):
    return api.post(f"/api/v1/questions/{question.pk}/answers/", body)


def right_answer(variant):
    return get_family("relu_neuron").variant(int(variant["seed"])).correct_answer


def test_farming_a_chosen_seed_counts_for_nothing_a_teacher_reads(api, other_api, learner):
    question = generated_question()
    classroom = ClassroomFactory(course=question.lesson.course)
    MembershipFactory(classroom=classroom, user=learner)
    assignment = AssignmentFactory(classroom=classroom, question_ids=[question.pk])
    # The learner picks a seed, reads its answer in practice, then answers it in review.
    variant = served(api, question, seed="7")
    read = answer(api, question, response="0", variant=variant["token"], mode="practice").json()

    farmed = answer(api, question, response=read["correct_answer"], variant=variant["token"])

    body = farmed.json()
    assert farmed.status_code == 201, body
    assert (body["status"], body["mode"], body["review"]) == ("correct", "practice", None)
    assert body["notice"]["code"] == "seed_chosen"
    assert "practice" in body["feedback_html"]
    assert not Card.objects.filter(user=learner, question=question).exists()
    assert Answer.objects.get(pk=body["answer_id"]).mode == "practice"
    other_api.authenticate(classroom.teacher)
    base = f"/api/v1/classrooms/{classroom.pk}"
    progress = other_api.get(f"{base}/progress/").json()["learners"][0]
    assert (progress["answers"], progress["accuracy"], progress["assignments_done"]) == (
        0,
        None,
        0,
    )
    items = other_api.get(f"{base}/items/").json()["results"]
    assert [(i["question"], i["answers"]) for i in items] == [(question.pk, 0)]
    rows = other_api.get(f"{base}/assignments/").json()["results"]
    assert [(r["id"], [x["done"] for x in r["learners"]]) for r in rows] == [
        (assignment.pk, [False])
    ]


def test_a_variant_the_server_chose_counts_for_review_once(api, learner):
    question = generated_question()
    variant = served(api, question)

    first = answer(api, question, response=right_answer(variant), variant=variant["token"]).json()
    again = answer(api, question, response=right_answer(variant), variant=variant["token"]).json()

    assert (first["mode"], first["notice"], first["review"]["rating"]) == ("review", None, "good")
    assert (again["mode"], again["review"], again["notice"]["code"]) == (
        "practice",
        None,
        "variant_answered",
    )
    assert Card.objects.get(user=learner, question=question).reps == 1
    assert list(Answer.objects.order_by("pk").values_list("mode", flat=True)) == [
        "review",
        "practice",
    ]


def test_a_variant_answered_in_practice_counts_as_practice_in_review(api, learner):
    question = generated_question()
    variant = served(api, question)
    read = answer(api, question, response="0", variant=variant["token"], mode="practice").json()

    farmed = answer(api, question, response=read["correct_answer"], variant=variant["token"])

    assert (farmed.json()["mode"], farmed.json()["notice"]["code"]) == (
        "practice",
        "variant_answered",
    )
    assert not Card.objects.filter(user=learner, question=question).exists()


def test_a_fresh_variant_after_a_practised_one_counts_for_review(api, learner):
    question = generated_question()
    practised = served(api, question)
    answer(api, question, response="0", variant=practised["token"], mode="practice")
    fresh = served(api, question)

    body = answer(api, question, response=right_answer(fresh), variant=fresh["token"]).json()

    assert (body["mode"], body["status"], body["notice"]) == ("review", "correct", None)


def test_a_token_undone_and_sent_again_counts_as_practice(api, learner):
    question = generated_question()
    variant = served(api, question)
    wrong = answer(api, question, response="12345", variant=variant["token"]).json()

    undone = api.post("/api/v1/reviews/undo/")
    again = answer(api, question, response=wrong["correct_answer"], variant=variant["token"])

    assert undone.status_code == 200, undone.text
    assert (again.json()["mode"], again.json()["notice"]["code"]) == (
        "practice",
        "variant_answered",
    )
    # The review is taken back; the answer stays, as practice, for what it showed.
    assert list(Answer.objects.order_by("pk").values_list("mode", "card")) == [
        ("practice", None),
        ("practice", None),
    ]
    assert not Card.objects.filter(user=learner, question=question, reps__gt=0).exists()


def test_a_token_cannot_be_made_to_say_the_server_chose_it(api, learner):
    question = generated_question()
    token = served(api, question, seed="7")["token"]
    claims = signing.loads(token, salt="residual.quizzes.variant")
    forged = signing.dumps({**claims, "c": 1}, salt="residual.quizzes.variant", key="guessed")

    refused = answer(api, question, response="1", variant=forged)

    assert_problem(refused, 400, field="variant")
    assert Answer.objects.count() == 0


def test_a_token_is_reviewed_once_whatever_the_database_is_asked(learner):
    question = QuestionFactory()

    def review_with(nonce):
        return Answer.objects.create(
            user=learner, question=question, question_version=1, status="correct", score=1.0,
            variant_nonce=nonce,
        )  # fmt: skip

    review_with("n1")
    Answer.objects.create(
        user=learner, question=question, question_version=1, status="correct", score=1.0,
        variant_nonce="n1", mode="practice",
    )  # fmt: skip
    with pytest.raises(IntegrityError), transaction.atomic():
        review_with("n1")
    assert Answer.objects.filter(variant_nonce="n1").count() == 2


def test_one_token_sent_twice_at_once_counts_for_review_once(live_server, learner):
    question = generated_question()
    clients = [Api(live_server.url) for _ in range(2)]
    for client in clients:
        client.authenticate(learner)
    variant = served(clients[0], question)
    start = threading.Barrier(len(clients))
    statuses = []

    def send(client):
        start.wait()
        body = {"response": right_answer(variant), "variant": variant["token"]}
        response = answer(client, question, **body)
        statuses.append(response.status_code)

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    # The second is practice, or refused as still in progress: never a second review.
    assert Answer.objects.filter(mode="review").count() == 1
    assert Card.objects.get(user=learner, question=question).reps == 1
    assert sorted(statuses)[0] == 201


def test_a_synced_review_counts_as_an_online_one_would(api, learner):
    question = generated_question()
    chosen, fresh = served(api, question, seed="7"), served(api, question)
    at = timezone.now() - timedelta(hours=2)

    def item(variant, minutes):
        return {
            "client_id": str(uuid.uuid4()),
            "question": question.pk,
            "reviewed_at": (at + timedelta(minutes=minutes)).isoformat(),
            "response": right_answer(variant),
            "variant": variant["token"],
        }

    body = api.post(
        "/api/v1/reviews/sync/",
        {"reviews": [item(chosen, 0), item(fresh, 1), item(fresh, 2)]},
    ).json()

    results = body["results"]
    assert [(r["status"], r["mode"], r["rating"]) for r in results] == [
        ("applied", "practice", None),
        ("applied", "review", "good"),
        ("applied", "practice", None),
    ]
    assert [r["notice"] and r["notice"]["code"] for r in results] == [
        "seed_chosen",
        None,
        "variant_answered",
    ]
    assert Card.objects.get(user=learner, question=question).reps == 1
