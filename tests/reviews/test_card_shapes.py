"""Cards are shaped as plain dicts, exactly as the card serializer (which documents them) would."""

from datetime import timedelta

import pytest
from django.utils import timezone

from engine.scheduling import Rating
from reviews import cards
from reviews.api.cards import CardSerializer, serialize_cards
from reviews.models import Card
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


def reviewed_cards():
    user = UserFactory()
    now = timezone.now()
    made = []
    for ratings in ([Rating.GOOD], [Rating.GOOD, Rating.GOOD, Rating.EASY], [Rating.AGAIN]):
        card, question = None, QuestionFactory()
        for day, rating in enumerate(ratings):
            card, _, _ = cards.card_review(
                card=card,
                user=user,
                question=question,
                rating=rating,
                now=now - timedelta(days=30 - 9 * day, microseconds=day),
            )
        made.append(card)
    forgotten = cards.card_action(card=made[2], action="forget", now=now)
    suspended = cards.card_action(card=made[0], action="suspend", now=now)
    suspended.buried_until = now + timedelta(hours=5)
    suspended.save(update_fields=["buried_until"])
    return [suspended, made[1], forgotten]


def by_serializer(card_rows, shaped):
    chances = {card["id"]: card["retrievability"] for card in shaped}
    return CardSerializer(card_rows, many=True, context={"retrievability": chances}).data


def test_cards_in_memory_are_shaped_as_the_serializer_shapes_them():
    card_rows = reviewed_cards()

    shaped = serialize_cards(card_rows)

    assert shaped == by_serializer(card_rows, shaped)
    assert [list(card) for card in shaped] == [list(CardSerializer().fields)] * 3
    assert shaped[1]["retrievability"] > 0.5
    assert (shaped[2]["state"], shaped[2]["retrievability"]) == ("new", 0.0)


def test_cards_read_back_are_shaped_as_the_serializer_shapes_them():
    reviewed_cards()
    card_rows = list(Card.objects.order_by("pk"))

    shaped = serialize_cards(card_rows)

    assert shaped == by_serializer(card_rows, shaped)
    assert shaped[0]["buried_until"].endswith("Z")
    assert [card["suspended"] for card in shaped] == [True, False, False]
