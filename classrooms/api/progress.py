"""Each learner's progress on a classroom's course, for its teacher: JSON, or a spreadsheet
streamed as CSV with formula-like cells escaped."""

import csv
from collections.abc import Iterator
from typing import Any

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from classrooms.api.classrooms import teacher_or_403
from classrooms.progress import PROGRESS_COLUMNS, classroom_progress
from config.fields import QuerySerializer
from config.problems import Problem


class CSVRenderer(BaseRenderer):
    """Lets `?format=csv` (or Accept: text/csv) through content negotiation; the view streams
    the table itself. A problem raised on the way is still sent as JSON."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> Any:
        return JSONRenderer().render(data)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """Text a spreadsheet would run as a formula gets a leading apostrophe, so it stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class _Line:
    def write(self, value: str) -> str:
        return value


def csv_lines(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> Iterator[str]:
    writer = csv.writer(_Line())
    yield writer.writerow(columns)
    for row in rows:
        yield writer.writerow([spreadsheet_safe(_cell(row[c])) for c in columns])


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


class LearnerProgressSerializer(serializers.Serializer[Any]):
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    lessons_completed = serializers.IntegerField()
    answers = serializers.IntegerField(help_text="Review-mode answers to the course's questions.")
    accuracy = serializers.FloatField(allow_null=True, help_text="Mean score of those answers.")
    average_retrievability = serializers.FloatField(
        allow_null=True, help_text="Mean chance of recall now over reviewed cards of the course."
    )
    due = serializers.IntegerField(help_text="Cards due by the end of the learner's day.")
    overdue = serializers.IntegerField(help_text="Cards due before the learner's day began.")
    reviews_7d = serializers.IntegerField()
    streak_days = serializers.IntegerField(help_text="In the learner's own days.")
    last_active = serializers.DateTimeField(allow_null=True)
    assignments_done = serializers.IntegerField()


class ProgressSerializer(serializers.Serializer[Any]):
    learners = LearnerProgressSerializer(many=True)


class ProgressQuery(QuerySerializer):
    format = serializers.ChoiceField(
        choices=["json", "csv"], required=False, help_text="csv: a spreadsheet, streamed."
    )


class ProgressView(APIView):
    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, CSVRenderer]

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # ?format= wins over the Accept header: a spreadsheet link works from any client.
        wanted = request.query_params.get("format")
        if wanted == "csv":
            return (CSVRenderer(), CSVRenderer.media_type)
        if wanted not in (None, "", "json") and not force:
            raise Problem.invalid(
                field="format", code="invalid_choice", message="format is json or csv."
            )
        return super().perform_content_negotiation(request, force)

    @extend_schema(
        parameters=[ProgressQuery],
        responses={
            (200, "application/json"): ProgressSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
        },
        summary="Each learner's progress on the classroom's course (the teacher)",
        operation_id="getClassProgress",
    )
    def get(self, request: Request, classroom_id: int) -> Any:
        access = teacher_or_403(request, classroom_id)
        ProgressQuery(data=request.query_params).is_valid(raise_exception=True)
        # Each row's own fields (plain values, nothing to copy deeply: `asdict` would take
        # longer than the queries' Python at a thousand learners).
        learners = [
            vars(row) for row in classroom_progress(classroom=access.classroom, now=timezone.now())
        ]
        if request.accepted_renderer.format != "csv":
            # Plain values already (the renderer writes datetimes as ISO 8601, like the
            # serializer would): 200 rows need no field-by-field pass.
            return Response({"learners": learners})
        response = StreamingHttpResponse(
            csv_lines(learners, PROGRESS_COLUMNS), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = (
            f'attachment; filename="classroom-{access.classroom.pk}-progress.csv"'
        )
        return response
