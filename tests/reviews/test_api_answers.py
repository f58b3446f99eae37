"""Answering over HTTP: every kind graded, stored once, explained; bad input refused whole."""

import uuid

import pytest
from django.core import signing

from engine import get_family
from quizzes.models import Question
from quizzes.variants import variant_token
from reviews.models import Answer, IdempotencyRecord
from tests.conftest import assert_problem
from tests.factories import ChoiceFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


def answer(api, question, **body):
    return api.post(f"/api/v1/questions/{question.pk}/answers/", body)


def test_a_right_count_in_any_typed_form_is_correct(api, learner):
    question = QuestionFactory()

    for typed in ("8000000", "8,000,000", "8e6", "8 million", "8M", "8000000 weights"):
        body = answer(api, question, response=typed, mode="practice").json()
        assert body["status"] == "correct", (typed, body)
        assert body["score"] == 1
        assert body["correct_answer"] == "8,000,000"


def test_a_known_mistake_is_named(api, learner):
    question = QuestionFactory()

    body = answer(api, question, response="4,000,000").json()

    assert body["status"] == "incorrect"
    assert body["misconception"] == {"code": "one_matrix", "message": "That is one matrix."}
    assert "That is one matrix." in body["feedback_html"]
    assert body["solution_steps"] == ["2 × 1,000 × 4,000 = 8,000,000"]


def test_every_answer_is_stored_with_what_was_typed_and_read(api, learner):
    question = QuestionFactory()

    answer(api, question, response="8e6", duration_ms=5400, mode="practice")

    stored = Answer.objects.get()
    assert (stored.user, stored.question, stored.question_version) == (learner, question, 1)
    assert (stored.response, stored.value_read, stored.status) == ("8e6", "8000000", "correct")
    assert (stored.mode, stored.duration_ms, stored.score) == ("practice", 5400, 1.0)


@pytest.mark.parametrize("typed", ["", "eight million", "1,5", "8 9", "nan", "x" * 101])
def test_text_that_is_not_one_number_is_422_and_stores_nothing(api, learner, typed):
    question = QuestionFactory()

    response = answer(api, question, response=typed)

    if typed == "":
        assert_problem(response, 400, field="response")
    else:
        body = assert_problem(response, 422, field="response")
        assert body["errors"][0]["code"] == "unreadable_number"
        assert body["errors"][0]["message"]
    assert Answer.objects.count() == 0


def test_single_choice_is_right_or_wrong_and_shows_every_choices_verdict(api, learner):
    right = ChoiceFactory(is_correct=True)
    wrong = ChoiceFactory(question=right.question)

    good = answer(api, right.question, choice_ids=[right.pk]).json()
    bad = answer(api, right.question, choice_ids=[wrong.pk]).json()

    assert (good["status"], bad["status"]) == ("correct", "incorrect")
    assert {c["id"]: c["correct"] for c in good["choices"]} == {right.pk: True, wrong.pk: False}


def test_multiple_choice_gives_partial_credit(api, learner):
    question = QuestionFactory(kind=Question.Kind.MULTIPLE_CHOICE, answer=None, mistakes=[])
    a, b = ChoiceFactory.create_batch(2, question=question, is_correct=True)
    c = ChoiceFactory(question=question)

    half = answer(api, question, choice_ids=[a.pk]).json()
    full = answer(api, question, choice_ids=[a.pk, b.pk]).json()
    cancelled = answer(api, question, choice_ids=[a.pk, c.pk]).json()

    assert (half["status"], half["score"]) == ("partial", 0.5)
    assert (full["status"], full["score"]) == ("correct", 1.0)
    assert (cancelled["status"], cancelled["score"]) == ("incorrect", 0.0)


@pytest.mark.parametrize(
    ("choice_ids", "code"), [([], "required"), ([999999], "unknown_choice"), (None, "two")]
)
def test_bad_choices_are_400_naming_choice_ids(api, learner, choice_ids, code):
    right = ChoiceFactory(is_correct=True)
    other = ChoiceFactory(question=right.question)
    ids = [right.pk, other.pk] if choice_ids is None else choice_ids

    response = answer(api, right.question, choice_ids=ids)

    assert_problem(response, 400, field="choice_ids")
    assert Answer.objects.count() == 0


def test_free_text_needs_a_self_rating_and_returns_the_model_answer(api, learner):
    question = QuestionFactory(
        kind=Question.Kind.FREE_TEXT,
        answer=None,
        mistakes=[],
        model_answer_html="<p>Two sublayers, each norm, sublayer, add.</p>",
    )

    reveal = api.post(f"/api/v1/questions/{question.pk}/reveal/", {}).json()["id"]
    unrated = answer(api, question, response="attention and an MLP", reveal=reveal)
    rated = answer(
        api, question, response="attention and an MLP", self_rating="hard", reveal=reveal
    )

    assert_problem(unrated, 400, field="self_rating")
    body = rated.json()
    assert body["status"] == "self_graded"
    assert body["score"] == 0.5
    assert body["model_answer_html"] == "<p>Two sublayers, each norm, sublayer, add.</p>"
    assert Answer.objects.get().self_rating == "hard"


def generated_question():
    return QuestionFactory(generator="relu_neuron", answer=None, tolerance=None, mistakes=[])


def test_a_generated_question_is_graded_against_its_signed_variant(api, learner):
    question = generated_question()
    detail = api.get(f"/api/v1/questions/{question.pk}/", params={"seed": "42"}).json()
    variant = get_family("relu_neuron").variant(42)

    body = answer(
        api, question, response=variant.correct_answer, variant=detail["variant"]["token"]
    ).json()

    assert body["status"] == "correct", body
    assert (body["variant_seed"], Answer.objects.get().variant_seed) == ("42", 42)


def test_a_forged_token_is_400(api, learner):
    question = generated_question()

    response = answer(api, question, response="1", variant="forged:token")

    assert_problem(response, 400, field="variant")


def test_another_learners_token_is_400(api, learner):
    question = generated_question()
    other = UserFactory()
    token = variant_token(user_id=other.pk, question_id=question.pk, seed=7)

    response = answer(api, question, response="1", variant=token)

    assert "another question or learner" in assert_problem(response, 400, "variant")["detail"]


def test_a_token_for_another_question_is_400(api, learner):
    question, other = generated_question(), generated_question()
    token = variant_token(user_id=learner.pk, question_id=other.pk, seed=7)

    assert_problem(answer(api, question, response="1", variant=token), 400, field="variant")


def test_an_expired_token_is_400(api, learner, settings):
    question = generated_question()
    token = variant_token(user_id=learner.pk, question_id=question.pk, seed=7)
    settings.VARIANT_TOKEN_MAX_AGE = -1

    body = assert_problem(answer(api, question, response="1", variant=token), 400, "variant")

    assert "expired" in body["detail"]


def test_a_token_signed_with_another_key_is_400(api, learner):
    question = generated_question()
    token = signing.dumps({"u": learner.pk, "q": question.pk, "s": 7}, key="not-our-key", salt="x")

    assert_problem(answer(api, question, response="1", variant=token), 400, field="variant")


def test_the_same_idempotency_key_returns_the_first_response_and_stores_once(api, learner):
    question = QuestionFactory()
    headers = {"Idempotency-Key": "retry-1"}

    first = api.post(
        f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"}, headers=headers
    )
    again = api.post(
        f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"}, headers=headers
    )

    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert Answer.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1


def test_the_same_key_with_another_body_is_422(api, learner):
    question = QuestionFactory()
    headers = {"Idempotency-Key": "retry-2"}
    api.post(f"/api/v1/questions/{question.pk}/answers/", {"response": "8e6"}, headers=headers)

    response = api.post(
        f"/api/v1/questions/{question.pk}/answers/", {"response": "4e6"}, headers=headers
    )

    assert_problem(response, 422)
    assert Answer.objects.count() == 1


def test_a_client_id_works_as_the_idempotency_key(api, learner):
    question = QuestionFactory()
    client_id = str(uuid.uuid4())

    first = answer(api, question, response="8e6", client_id=client_id)
    again = answer(api, question, response="8e6", client_id=client_id)

    assert first.json() == again.json()
    assert Answer.objects.get().client_id == uuid.UUID(client_id)


def test_a_client_id_sent_again_after_its_record_expired_is_not_counted_twice(api, learner):
    question = QuestionFactory()
    client_id = str(uuid.uuid4())
    answer(api, question, response="8e6", client_id=client_id)
    IdempotencyRecord.objects.all().delete()  # pruned after IDEMPOTENCY_TTL

    again = answer(api, question, response="8e6", client_id=client_id)

    body = assert_problem(again, 409, "client_id")
    assert body["errors"][0]["code"] == "already_answered"
    assert Answer.objects.count() == 1


def test_keys_belong_to_their_user(api, other_api, learner):
    question = QuestionFactory()
    other_api.authenticate(UserFactory())
    headers = {"Idempotency-Key": "shared"}
    url = f"/api/v1/questions/{question.pk}/answers/"

    api.post(url, {"response": "8e6"}, headers=headers)
    other = other_api.post(url, {"response": "4e6"}, headers=headers)

    assert other.status_code == 201
    assert Answer.objects.count() == 2


def test_an_unknown_question_is_404(api, learner):
    assert_problem(api.post("/api/v1/questions/999999/answers/", {"response": "1"}), 404)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"response": ["8e6"]}, "response"),
        ({"response": "1", "mode": "exam"}, "mode"),
        ({"response": "1", "duration_ms": -5}, "duration_ms"),
        ({"response": "1", "client_id": "not-a-uuid"}, "client_id"),
        ({"response": "1", "self_rating": "great"}, "self_rating"),
        ({"choice_ids": ["one"]}, "choice_ids"),
    ],
)
def test_wrong_types_and_choices_are_400_naming_the_field(api, learner, body, field):
    question = QuestionFactory()

    response = answer(api, question, **body)

    assert field in assert_problem(response, 400)["errors"][0]["field"]
    assert Answer.objects.count() == 0


def test_answering_needs_an_account(api):
    assert_problem(answer(api, QuestionFactory(), response="8e6"), 401)


def test_a_past_answer_reads_as_it_was_answered(api, learner):
    question = QuestionFactory(generator="relu_neuron", answer=None, tolerance=None, mistakes=[])
    served = api.get(f"/api/v1/questions/{question.pk}/").json()["variant"]
    typed = get_family("relu_neuron").variant(int(served["seed"])).correct_answer
    given = answer(api, question, response=typed, variant=served["token"]).json()
    wrong = answer(api, QuestionFactory(), response="4e6", mode="practice").json()

    past = [api.get(f"/api/v1/answers/{a['answer_id']}/") for a in (given, wrong)]

    assert [p.status_code for p in past] == [200, 200]
    assert [p.json() for p in past] == [given, wrong]
    assert (given["review"]["rating"], wrong["review"]) == ("good", None)


def test_someone_elses_answer_is_404_like_one_that_does_not_exist(api, other_api, learner):
    mine = answer(api, QuestionFactory(), response="8e6").json()["answer_id"]
    other_api.authenticate(UserFactory())

    assert_problem(other_api.get(f"/api/v1/answers/{mine}/"), 404)
    assert_problem(api.get(f"/api/v1/answers/{mine + 1}/"), 404)
    assert_problem(api.get(f"/api/v1/answers/{2**64}/"), 404)
    assert_problem(api.anonymous().get(f"/api/v1/answers/{mine}/"), 401)
