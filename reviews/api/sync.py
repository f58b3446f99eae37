from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import StrictIntegerField
from quizzes.errors import AnswerRefused
from reviews import idempotency
from reviews.api.answers import IDEMPOTENCY_HEADER, idempotency_key, refusal_problem
from reviews.api.cards import CardSerializer, serialize_cards
from reviews.api.serializers import AnswerInSerializer, NoticeSerializer, VerdictSerializer
from reviews.api.sync_items import offline_reviews
from reviews.models import Answer
from reviews.sync import MAX_BATCH, reviews_sync


class OfflineReviewSerializer(AnswerInSerializer):
    """One item of a sync, as the API documents it. Items are checked by `sync_items`, which is
    cheaper a thousand times over; a test holds it to exactly what this serializer does."""

    client_id = serializers.UUIDField()
    question = StrictIntegerField(min_value=1, max_value=2**63 - 1)
    reviewed_at = serializers.DateTimeField(
        help_text="When it was answered, with its offset: after the account was made and "
        "within `OFFLINE_REVIEW_MAX_AGE` (30 days by default)."
    )

    def validate_reviewed_at(self, value: Any) -> Any:
        raw = self.initial_data.get("reviewed_at", "")
        if isinstance(raw, str) and not (raw.endswith("Z") or raw[-6:-5] in "+-"):
            raise serializers.ValidationError("Give the time with its offset, e.g. ...T09:30:00Z.")
        return value


class OfflineReviewsField(serializers.ListField):
    """The batch's items, documented as `OfflineReviewSerializer` but taken as they come: each
    is checked on its own by `sync_items`, so one bad item (null included) never sinks the
    batch. The list itself is checked here: a list, of 1 to `MAX_BATCH` items."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=OfflineReviewSerializer(), **kwargs)

    def run_child_validation(self, data: list[Any]) -> list[Any]:
        return list(data)


class SyncInSerializer(serializers.Serializer[Any]):
    reviews = OfflineReviewsField(min_length=1, max_length=MAX_BATCH)


class SyncErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(
        allow_null=True, help_text="The item's field at fault; null for the item as a whole."
    )
    code = serializers.CharField()
    message = serializers.CharField()


class SyncResultSerializer(serializers.Serializer[Any]):
    client_id = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(
        choices=["applied", "duplicate", "invalid"],
        help_text="Whether the review was stored now, stored before, or refused.",
    )
    answer_id = serializers.IntegerField(
        required=False, help_text="The stored answer (`GET /api/v1/answers/{id}/`)."
    )
    mode = serializers.ChoiceField(
        choices=Answer.Mode.choices,
        required=False,
        help_text="How it counted: practice when its variant was the learner's pick or "
        "answered before (`notice` says why).",
    )
    score = serializers.FloatField(required=False)
    rating = serializers.ChoiceField(choices=Answer.Rating.choices, allow_null=True, required=False)
    notice = NoticeSerializer(allow_null=True, required=False)
    feedback = VerdictSerializer(
        required=False, help_text="The verdict, as the answer to an online review gives it."
    )
    errors = SyncErrorSerializer(many=True, required=False)  # type: ignore[assignment]


class SyncOutSerializer(serializers.Serializer[Any]):
    results = SyncResultSerializer(many=True)
    cards = CardSerializer(many=True)


class SyncView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[IDEMPOTENCY_HEADER],
        request=SyncInSerializer,
        responses={200: SyncOutSerializer},
        summary="Apply reviews made offline, in time order per card; each item reported",
        operation_id="syncReviews",
    )
    def post(self, request: Request) -> Response:
        body = SyncInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        reviews, refused = offline_reviews(body.validated_data["reviews"])

        def apply() -> idempotency.Replayable:
            outcome = reviews_sync(
                user=request.user, reviews=reviews, refused=refused, now=timezone.now()
            )
            return idempotency.Replayable(
                200, {"results": outcome.results, "cards": serialize_cards(outcome.cards)}
            )

        try:
            result = idempotency.idempotent(
                user=request.user,
                key=idempotency_key(request, None),
                fingerprint=idempotency.request_fingerprint(
                    method="POST", path=request.path, body=request.data
                ),
                action=apply,
            )
        except AnswerRefused as refused_whole:
            raise refusal_problem(refused_whole) from None
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(result.body, status=result.status_code, headers=headers)
