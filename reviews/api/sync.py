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
from reviews.api.serializers import AnswerInSerializer
from reviews.api.sync_items import offline_reviews
from reviews.sync import MAX_BATCH, reviews_sync


class OfflineReviewSerializer(AnswerInSerializer):
    """One item of a sync, as the API takes it. Items are checked by `sync_items`, which is
    cheaper a thousand times over; a test holds it to exactly what this serializer does."""

    client_id = serializers.UUIDField()
    question = StrictIntegerField(min_value=1)
    reviewed_at = serializers.DateTimeField(help_text="When it was answered, with its offset.")

    def validate_reviewed_at(self, value: Any) -> Any:
        raw = self.initial_data.get("reviewed_at", "")
        if isinstance(raw, str) and not (raw.endswith("Z") or raw[-6:-5] in "+-"):
            raise serializers.ValidationError("Give the time with its offset, e.g. ...T09:30:00Z.")
        return value


class SyncInSerializer(serializers.Serializer[Any]):
    # Items are checked one by one, so one malformed item never sinks the batch.
    reviews = serializers.ListField(
        child=serializers.JSONField(), min_length=1, max_length=MAX_BATCH
    )


class SyncResultSerializer(serializers.Serializer[Any]):
    client_id = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=["applied", "duplicate", "invalid"])
    answer_id = serializers.IntegerField(required=False)
    score = serializers.FloatField(required=False)
    rating = serializers.CharField(required=False)
    errors = serializers.ListField(child=serializers.DictField(), required=False)


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
