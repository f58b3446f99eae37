from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import QuerySerializer
from quizzes.api import shapes
from quizzes.api.serializers import QuestionDetailSerializer
from reviews import queue
from reviews.models import Card


class QueueQuery(QuerySerializer):
    limit = serializers.IntegerField(min_value=1, max_value=100, default=20)
    course = serializers.RegexField(r"^[a-z0-9-]+\Z", max_length=80, required=False)
    lesson = serializers.RegexField(r"^[a-z0-9-]+\Z", max_length=80, required=False)


class QueueItemSerializer(serializers.Serializer[Any]):
    card_id = serializers.IntegerField(
        allow_null=True, help_text="Null for a question not yet seen."
    )
    state = serializers.ChoiceField(choices=Card.State.choices)
    due = serializers.DateTimeField(allow_null=True)
    question = QuestionDetailSerializer()


class QueueSerializer(serializers.Serializer[Any]):
    due_count = serializers.IntegerField()
    new_count = serializers.IntegerField()
    reviews_today = serializers.IntegerField()
    new_today = serializers.IntegerField()
    cards = QueueItemSerializer(many=True)


class QueueView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[QueueQuery],
        responses={200: QueueSerializer},
        summary="What to review now: due cards first, then new questions, within today's limits",
        operation_id="getReviewQueue",
    )
    def get(self, request: Request) -> Response:
        query = QueueQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        found = queue.review_queue(user=request.user, now=timezone.now(), **query.validated_data)
        user_id = request.user.pk
        when = serializers.DateTimeField()
        items = [
            {
                "card_id": card.pk,
                "state": card.state,
                "due": when.to_representation(card.due),
                "question": shapes.question_detail(card.question, user_id=user_id),
            }
            for card in found.cards
        ] + [
            {
                "card_id": None,
                "state": "new",
                "due": None,
                "question": shapes.question_detail(question, user_id=user_id),
            }
            for question in found.new_questions
        ]
        # Shaped here (questions are already plain data); QueueSerializer documents it.
        return Response(
            {
                "due_count": found.due_count,
                "new_count": found.new_count,
                "reviews_today": found.reviews_today,
                "new_today": found.new_today,
                "cards": items,
            }
        )
