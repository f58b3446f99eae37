"""Item analysis of a classroom's course, for its teacher: how each question did on the
members' first attempts."""

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from classrooms.api.classrooms import teacher_or_403
from classrooms.items import classroom_items
from quizzes.models import Question


class MisconceptionCountSerializer(serializers.Serializer[Any]):
    code = serializers.CharField()
    count = serializers.IntegerField()


class ItemSerializer(serializers.Serializer[Any]):
    question = serializers.IntegerField()
    key = serializers.CharField()
    lesson = serializers.CharField()
    answers = serializers.IntegerField(help_text="Learners who answered it (first attempts).")
    facility = serializers.FloatField(
        allow_null=True, help_text="Mean first-attempt score; null under 5 learners."
    )
    discrimination = serializers.FloatField(
        allow_null=True,
        help_text="Point-biserial correlation with the score on the rest of the course; "
        "null under 5 learners or when every score is the same.",
    )
    misconceptions = MisconceptionCountSerializer(many=True)


class ItemsView(generics.GenericAPIView[Any]):
    permission_classes = [IsAuthenticated]
    queryset = Question.objects.none()  # for the schema; rows come from the selectors
    serializer_class = ItemSerializer

    @extend_schema(
        responses={200: ItemSerializer(many=True)},
        summary="Item analysis of the course's questions on the members' first attempts "
        "(the teacher)",
        operation_id="listItemAnalysis",
    )
    def get(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        items = [asdict(item) for item in classroom_items(classroom=access.classroom)]
        page = self.paginate_queryset(items)  # type: ignore[arg-type]
        return self.get_paginated_response(page)
