"""Staff find learners' cards, answers and reveals in the admin, and change none of them."""

import pytest
from django.urls import reverse
from django.utils import timezone

from reviews.models import Answer, Card, Reveal
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(admin_client):
    admin_client.defaults["HTTP_X_FORWARDED_PROTO"] = "https"
    return admin_client


@pytest.fixture
def cards():
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    relu, gelu = QuestionFactory(key="relu-neuron"), QuestionFactory(key="gelu-neuron")
    now = timezone.now()
    return {
        "ada-relu": Card.objects.create(user=ada, question=relu, due=now, seed=1, state="review"),
        "ada-gelu": Card.objects.create(
            user=ada, question=gelu, due=now, seed=2, suspended=True, leech=True
        ),
        "bob-relu": Card.objects.create(user=bob, question=relu, due=now, seed=3),
    }


def listed(staff, query: str) -> set[int]:
    response = staff.get(reverse("admin:reviews_card_changelist") + query)
    assert response.status_code == 200
    return {card.pk for card in response.context["cl"].result_list}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", {"ada-relu", "ada-gelu", "bob-relu"}),
        ("?q=ada", {"ada-relu", "ada-gelu"}),
        ("?q=relu-neuron", {"ada-relu", "bob-relu"}),
        ("?state__exact=review", {"ada-relu"}),
        ("?suspended__exact=1", {"ada-gelu"}),
        ("?leech__exact=0", {"ada-relu", "bob-relu"}),
    ],
)
def test_cards_are_found_by_learner_and_question_and_filtered(staff, cards, query, expected):
    assert listed(staff, query) == {cards[name].pk for name in expected}


def test_a_card_opens_read_only_and_cannot_be_added(staff, cards):
    card = cards["ada-relu"]

    opened = staff.get(reverse("admin:reviews_card_change", args=[card.pk]))
    changed = staff.post(reverse("admin:reviews_card_change", args=[card.pk]), {"reps": 99})
    added = staff.get(reverse("admin:reviews_card_add"))

    assert opened.status_code == 200
    assert b'name="reps"' not in opened.content
    assert changed.status_code == 403
    assert added.status_code == 403
    card.refresh_from_db()
    assert card.reps == 0


def test_answers_and_reveals_open_read_only(staff):
    learner, question = UserFactory(), QuestionFactory()
    reveal = Reveal.objects.create(user=learner, question=question)
    answer = Answer.objects.create(
        user=learner, question=question, question_version=1, status="correct", score=1.0,
        reveal=reveal, notice="answer_revealed",
    )  # fmt: skip

    for model, row in (("answer", answer), ("reveal", reveal)):
        assert staff.get(reverse(f"admin:reviews_{model}_changelist")).status_code == 200
        opened = staff.get(reverse(f"admin:reviews_{model}_change", args=[row.pk]))
        assert opened.status_code == 200
        assert b'type="submit" value="Save"' not in opened.content
