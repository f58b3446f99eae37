from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import StrictIntegerField
from config.problems import flatten_errors
from quizzes import services
from quizzes.api.cards import CardSerializer, serialize_cards
from quizzes.api.serializers import AnswerInSerializer
from quizzes.api.views import IDEMPOTENCY_HEADER, idempotency_key, refusal_problem
from quizzes.errors import AnswerRefused
from quizzes.sync import MAX_BATCH, OfflineReview, reviews_sync


class OfflineReviewSerializer(AnswerInSerializer):
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
    )
    def post(self, request: Request) -> Response:
        body = SyncInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        reviews, refused = [], {}
        for index, item in enumerate(body.validated_data["reviews"]):
            if not isinstance(item, dict):
                refused[index] = {
                    "client_id": None,
                    "status": "invalid",
                    "errors": [
                        {
                            "field": None,
                            "code": "not_an_object",
                            "message": "Send each review as an object.",
                        }
                    ],
                }
                continue
            checked = OfflineReviewSerializer(data=item)
            if not checked.is_valid():
                client_id = item.get("client_id")
                refused[index] = {
                    "client_id": client_id if isinstance(client_id, str) else None,
                    "status": "invalid",
                    "errors": flatten_errors(ValidationError(checked.errors).get_full_details()),
                }
                continue
            data = dict(checked.validated_data)
            client_id = data.pop("client_id")
            question_id = data.pop("question")
            reviewed_at = data.pop("reviewed_at")
            data.pop("mode", None)
            reviews.append(
                OfflineReview(
                    index=index,
                    client_id=client_id,
                    question_id=question_id,
                    reviewed_at=reviewed_at,
                    submitted=services.Submitted(**data, client_id=client_id),
                )
            )

        def apply() -> services.Replayable:
            outcome = reviews_sync(
                user=request.user, reviews=reviews, refused=refused, now=timezone.now()
            )
            return services.Replayable(
                200, {"results": outcome.results, "cards": serialize_cards(outcome.cards)}
            )

        try:
            result = services.idempotent(
                user=request.user,
                key=idempotency_key(request, None),
                fingerprint=services.request_fingerprint(
                    method="POST", path=request.path, body=request.data
                ),
                action=apply,
            )
        except AnswerRefused as refused_whole:
            raise refusal_problem(refused_whole) from None
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(result.body, status=result.status_code, headers=headers)
