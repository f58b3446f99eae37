from dataclasses import fields
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import QuerySerializer
from reviews.stats import RECALL_SAMPLE, learner_stats


class StatsQuery(QuerySerializer):
    days = serializers.IntegerField(min_value=1, max_value=365, default=365)


class ForecastDaySerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    due = serializers.IntegerField()


class HeatmapDaySerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    reviews = serializers.IntegerField()


class StatsSerializer(serializers.Serializer[Any]):
    due_today = serializers.IntegerField()
    new_available = serializers.IntegerField()
    reviews_today = serializers.IntegerField()
    streak_days = serializers.IntegerField()
    true_retention = serializers.FloatField(
        allow_null=True, help_text="Share of review-state answers passed in the last 30 days."
    )
    average_retrievability = serializers.FloatField(
        allow_null=True,
        help_text="Mean chance of recalling a reviewed card now, by the forgetting curve. Past "
        f"{RECALL_SAMPLE:,} reviewed cards, the mean of {RECALL_SAMPLE:,} of them drawn at random "
        "(within about half a percentage point).",
    )
    forecast = ForecastDaySerializer(many=True, help_text="Cards due on each of the next 30 days.")
    heatmap = HeatmapDaySerializer(many=True, help_text="Reviews on each day, oldest first.")


class StatsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[StatsQuery],
        responses={200: StatsSerializer},
        summary="Your numbers",
        operation_id="getStats",
    )
    def get(self, request: Request) -> Response:
        query = StatsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        stats = learner_stats(user=request.user, now=timezone.now(), **query.validated_data)
        # Its fields as they are (already plain values): `asdict` would copy the year's days.
        return Response({field.name: getattr(stats, field.name) for field in fields(stats)})
