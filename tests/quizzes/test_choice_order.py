"""Choices come in an order the server draws for each serving, kept in the variant's token: the
right one's position says nothing, and the answer's verdicts come back in the order shown."""

import math
from collections import Counter

import pytest

from quizzes.models import Question
from tests.content import load_shipped
from tests.factories import ChoiceFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SERVINGS = 24


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


def test_over_the_bank_the_right_choice_is_not_given_away_by_its_position(api):
    load_shipped()
    api.authenticate(UserFactory(new_cards_per_day=500, plan="pro"))  # the whole bank
    right = {
        question.pk: {c.pk for c in question.choices.all() if c.is_correct}
        for question in Question.objects.live()
        .filter(kind__in=["single_choice", "multiple_choice"])
        .prefetch_related("choices")
    }
    # Where each question's right choices were shown, over many servings of the whole bank.
    positions: dict[int, Counter[int]] = {pk: Counter() for pk in right}
    sizes: dict[int, int] = {}
    for _ in range(SERVINGS):
        queue = api.get("/api/v1/reviews/queue/", params={"limit": 100}).json()
        for question in (item["question"] for item in queue["cards"]):
            shown = [c["id"] for c in question.get("choices", [])]
            positions.get(question["id"], Counter()).update(
                i for i, pk in enumerate(shown) if pk in right.get(question["id"], ())
            )
            sizes[question["id"]] = len(shown)

    assert len(right) >= 5
    assert sum(sum(p.values()) for p in positions.values()) >= SERVINGS * len(right)
    # Each question's right choice moves from serving to serving...
    assert [pk for pk, seen in positions.items() if len(seen) < 2] == []
    # ... and over the bank, no position holds it more often than the others. The order is
    # truly random, so each position's count is binomial: it must lie within five standard
    # deviations of its share (a fair shuffle strays that far about once in two million
    # positions; a right choice kept at its place is tens of deviations out).
    for choices in set(sizes.values()) - {0}:
        counts = sum((p for pk, p in positions.items() if sizes[pk] == choices), Counter())
        shown, share = sum(counts.values()), 1 / choices
        expected, spread = shown * share, math.sqrt(shown * share * (1 - share))
        assert all(abs(counts[p] - expected) <= 5 * spread for p in range(choices)), (
            choices,
            counts,
        )


def test_the_verdicts_come_back_in_the_order_the_choices_were_shown(api, learner):
    right = ChoiceFactory(is_correct=True)
    for _ in range(4):
        ChoiceFactory(question=right.question)
    url = f"/api/v1/questions/{right.question.pk}/"
    served = api.get(url).json()

    body = api.post(
        f"{url}answers/", {"choice_ids": [right.pk], "variant": served["variant"]["token"]}
    ).json()

    assert [c["id"] for c in body["choices"]] == [c["id"] for c in served["choices"]]
    assert body["status"] == "correct"
    # Read again later, a past answer lists them as the bank does.
    past = api.get(f"/api/v1/answers/{body['answer_id']}/").json()
    assert sorted(c["id"] for c in past["choices"]) == sorted(c["id"] for c in body["choices"])


def test_a_choice_token_is_refused_for_a_generated_question_and_back(api, learner):
    right = ChoiceFactory(is_correct=True)
    generated = right.question.__class__.objects.create(
        key="generated", kind="numeric", topic="mlp", difficulty=2, lesson=right.question.lesson,
        section=right.question.section, prompt_markdown="?", prompt_html="<p>?</p>",
        generator="relu_neuron",
    )  # fmt: skip
    choice_token = api.get(f"/api/v1/questions/{right.question.pk}/").json()["variant"]["token"]

    refused = api.post(
        f"/api/v1/questions/{generated.pk}/answers/", {"response": "1", "variant": choice_token}
    )

    assert refused.status_code == 400
    assert refused.json()["errors"][0]["field"] == "variant"
