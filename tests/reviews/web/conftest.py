from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from quizzes.models import Question
from tests.factories import ChoiceFactory, QuestionFactory, UserFactory

MODEL_ANSWER = "<p>Norm, then the sublayer, then add it back to the stream.</p>"


@pytest.fixture
def client():
    """A browser behind the TLS-terminating proxy, as production serves pages."""
    return Client(headers={"X-Forwarded-Proto": "https"})


@pytest.fixture
def learner(client):
    user = UserFactory(date_joined=timezone.now() - timedelta(days=30))
    client.force_login(user)
    return user


@pytest.fixture
def numeric():
    return QuestionFactory()


@pytest.fixture
def single_choice():
    right = ChoiceFactory(
        is_correct=True, text_markdown="Above two", explanation_html="<p>The bias sets the bar.</p>"
    )
    ChoiceFactory(
        question=right.question,
        text_markdown="Above minus two",
        explanation_html="<p>That is the rule for a bias of plus two.</p>",
    )
    return right.question


@pytest.fixture
def multiple_choice():
    question = QuestionFactory(kind=Question.Kind.MULTIPLE_CHOICE, answer=None, mistakes=[])
    for n, right in enumerate([True, True, False]):
        ChoiceFactory(
            question=question,
            is_correct=right,
            text_markdown=f"Statement {n}",
            explanation_html=f"<p>Why statement {n}.</p>",
        )
    return question


@pytest.fixture
def generated():
    return QuestionFactory(
        generator="relu_neuron",
        answer=None,
        tolerance=None,
        mistakes=[],
        solution_steps=[],
        prompt_markdown="Work out this neuron's output by hand.",
    )


@pytest.fixture
def free_text():
    return QuestionFactory(
        kind=Question.Kind.FREE_TEXT,
        answer=None,
        mistakes=[],
        solution_steps=[],
        model_answer_html=MODEL_ANSWER,
    )
