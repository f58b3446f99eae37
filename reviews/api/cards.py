"""The caller's cards: list with their chance of recall now, and suspend/unsuspend/forget."""

from datetime import datetime, tzinfo
from typing import Any

import django_filters
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.filtering import StrictBooleanFilter, StrictFilterSet
from config.pagination import KeysetPagination
from config.problems import Problem
from engine.scheduling import retrievability_at
from reviews import cards as card_services
from reviews import selectors
from reviews.models import Answer, Card


class CardSerializer(serializers.ModelSerializer[Card]):
    question = serializers.IntegerField(source="question_id")
    retrievability = serializers.SerializerMethodField(
        help_text="The chance of recalling it now (0 for a new card)."
    )

    class Meta:
        model = Card
        fields = (
            "id",
            "question",
            "state",
            "due",
            "stability",
            "difficulty",
            "reps",
            "lapses",
            "suspended",
            "leech",
            "buried_until",
            "last_review",
            "retrievability",
        )

    def get_retrievability(self, card: Card) -> float:
        return float(self.context["retrievability"].get(card.pk, 0.0))


def serialize_cards(cards: list[Card]) -> list[dict[str, Any]]:
    """Cards as `CardSerializer` shapes them, with their retrievability computed for the whole
    page in one NumPy call. Built as plain dicts: a sync answers with up to a thousand cards,
    and a test holds this to the serializer's output."""
    now = timezone.now()
    chances = retrievability_at([card_services.card_state(c) for c in cards], now=now)
    zone = timezone.get_current_timezone()
    return [
        {
            "id": card.pk,
            "question": card.question_id,
            "state": card.state,
            "due": _moment(card.due, zone),
            "stability": card.stability,
            "difficulty": card.difficulty,
            "reps": card.reps,
            "lapses": card.lapses,
            "suspended": card.suspended,
            "leech": card.leech,
            "buried_until": _moment(card.buried_until, zone),
            "last_review": _moment(card.last_review, zone),
            "retrievability": chance,
        }
        for card, chance in zip(cards, chances.tolist(), strict=True)
    ]


def _moment(value: datetime | None, zone: tzinfo) -> str | None:
    """As DRF writes a datetime: ISO 8601 in the current time zone, UTC as `Z`."""
    if value is None:
        return None
    text = value.astimezone(zone).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class CardFilter(StrictFilterSet):
    state = django_filters.ChoiceFilter(choices=Card.State.choices)
    suspended = StrictBooleanFilter()
    leech = StrictBooleanFilter()
    lesson = django_filters.CharFilter(field_name="question__lesson__slug", max_length=80)

    class Meta:
        model = Card
        fields: list[str] = []


@extend_schema_view(
    get=extend_schema(
        summary="The caller's cards, with their chance of recall now", operation_id="listCards"
    )
)
class CardListView(generics.ListAPIView[Card]):
    permission_classes = [IsAuthenticated]
    serializer_class = CardSerializer
    filterset_class = CardFilter
    pagination_class = KeysetPagination  # ordered by (due, pk): `cards_of`

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return Card.objects.none()
        return selectors.cards_of(user=self.request.user)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(serialize_cards(list(page or [])))


class CardActionView(APIView):
    permission_classes = [IsAuthenticated]
    action_name = ""

    @extend_schema(request=None, responses={200: CardSerializer})
    def post(self, request: Request, card_id: int) -> Response:
        card = selectors.cards_of(user=request.user).filter(pk=card_id).first()
        if card is None:
            raise Problem(
                status_code=404,
                slug="not-found",
                title="Not found",
                detail=f"You have no card {card_id}.",
            )
        card = card_services.card_action(card=card, action=self.action_name, now=timezone.now())
        return Response(serialize_cards([card])[0])


@extend_schema_view(
    post=extend_schema(
        summary="Keep the card out of reviews until it is unsuspended", operation_id="suspendCard"
    )
)
class SuspendView(CardActionView):
    action_name = "suspend"


@extend_schema_view(
    post=extend_schema(
        summary="Bring a suspended card back into reviews", operation_id="unsuspendCard"
    )
)
class UnsuspendView(CardActionView):
    action_name = "unsuspend"


@extend_schema_view(
    post=extend_schema(summary="Start the card over as new", operation_id="forgetCard")
)
class ForgetView(CardActionView):
    action_name = "forget"


class UndoSerializer(serializers.Serializer[Any]):
    question = serializers.IntegerField()
    card = CardSerializer(allow_null=True, help_text="Null when the review had made the card.")


class UndoView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: UndoSerializer},
        summary="Take back the last review; its card returns to the state before it",
        operation_id="undoReview",
    )
    def post(self, request: Request) -> Response:
        try:
            card, question_id = card_services.review_undo(user=request.user)
        except Answer.DoesNotExist:
            raise Problem(
                status_code=404,
                slug="nothing-to-undo",
                title="Nothing to undo",
                detail="You have no review to take back.",
            ) from None
        return Response(
            {"question": question_id, "card": serialize_cards([card])[0] if card else None}
        )
