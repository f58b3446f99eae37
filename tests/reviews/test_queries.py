"""The answer path costs the same number of queries however long the learner's history."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import services as account_services
from course import revisions
from quizzes.selectors import question_to_answer
from quizzes.variants import variant_token
from reviews.cards import new_card
from reviews.models import Answer
from tests.factories import ChoiceFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


# An answer's queries, at most: the token, the content revision (the question and its
# choices are kept in the process for it), a savepoint, the idempotency key's lock
# (PostgreSQL) and record, the card, its write, the answer, the rollups (one statement on
# PostgreSQL, two elsewhere), the record's write and the savepoint's release.
ANSWER_BUDGET = 11
# The first answer to a question since the content changed reads it, and its choices.
FIRST_SINCE_A_CHANGE = 2


def kept(question):
    """The question as an earlier answer in this process left it: kept for the revision."""
    question_to_answer(question_id=question.pk)
    return question


def learner_with_history(answers: int):
    user = UserFactory()
    question = QuestionFactory()
    Answer.objects.bulk_create(
        Answer(
            user=user,
            question=question,
            question_version=1,
            response="8e6",
            value_read="8000000",
            status="correct",
            score=1.0,
        )
        for _ in range(answers)
    )
    _, key = account_services.token_create(user=user)
    return user, key


def queries_to_answer(client, key, question, body, headers=None) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            f"/api/v1/questions/{question.pk}/answers/",
            body,
            content_type="application/json",
            headers={
                "Authorization": f"Token {key}",
                "X-Forwarded-Proto": "https",
                **(headers or {}),
            },
        )
    assert response.status_code == 201, response.content
    return [q["sql"] for q in queries.captured_queries]


@pytest.mark.parametrize("with_key", [False, True])
def test_answering_costs_the_same_for_10_prior_answers_as_for_5000(client, with_key):
    counts = []
    for history in (10, 5_000):
        _, key = learner_with_history(history)
        headers = {"Idempotency-Key": f"k-{history}"} if with_key else None
        counts.append(
            len(
                queries_to_answer(
                    client, key, kept(QuestionFactory()), {"response": "8e6"}, headers
                )
            )
        )

    assert counts[0] == counts[1]
    assert counts[0] <= ANSWER_BUDGET, counts


def test_a_choice_answer_stays_within_the_budget(client):
    _, key = learner_with_history(10)
    right = ChoiceFactory(is_correct=True)
    ChoiceFactory(question=right.question)

    queries = queries_to_answer(client, key, kept(right.question), {"choice_ids": [right.pk]})

    assert len(queries) <= ANSWER_BUDGET, "\n".join(queries)


def test_the_first_answer_since_the_content_changed_reads_the_question_once(client):
    _, key = learner_with_history(10)
    right = ChoiceFactory(is_correct=True)
    body = {"choice_ids": [right.pk], "mode": "practice"}

    first = queries_to_answer(client, key, right.question, body)
    again = queries_to_answer(client, key, right.question, body)
    revisions.bump()  # the content changes: the kept question is read afresh
    after_the_change = queries_to_answer(client, key, right.question, body)

    assert len(first) == len(again) + FIRST_SINCE_A_CHANGE, "\n".join(first)
    assert len(after_the_change) == len(first)


def test_a_choice_answer_with_its_token_stays_within_the_budget(client):
    user, key = learner_with_history(10)
    right = ChoiceFactory(is_correct=True)
    other = ChoiceFactory(question=right.question)
    card = new_card(user=user, question=right.question)
    card.due = timezone.now()
    card.save()  # made ahead, as the learner's deck does
    token = variant_token(
        user_id=user.pk,
        question_id=right.question.pk,
        order=[other.pk, right.pk],
        server_chosen=True,
    )

    queries = queries_to_answer(
        client, key, kept(right.question), {"choice_ids": [right.pk], "variant": token}
    )

    assert len(queries) <= ANSWER_BUDGET, "\n".join(queries)
