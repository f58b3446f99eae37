"""A classroom's assignments (with who has done them), its learners' progress (JSON or CSV)
and its item analysis. Who may see what is decided by course.api.classrooms."""

import csv
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import QuerySerializer, StrictIntegerField
from config.problems import Problem, ProblemJSONRenderer
from course import selectors as course_selectors
from course import services as course_services
from course.api.classrooms import classroom_or_404, refusal_problem, teacher_or_403
from course.models import Assignment, Lesson
from quizzes.items import classroom_items
from quizzes.models import Question
from quizzes.progress import PROGRESS_COLUMNS, assignments_done, classroom_progress

# --- assignments ------------------------------------------------------------------------------


class AssignmentInSerializer(serializers.Serializer[Any]):
    title = serializers.CharField(max_length=200)
    lesson = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Lesson.objects.live(),
        required=False,
        allow_null=True,
        error_messages={"does_not_exist": "There is no lesson '{value}'."},
        help_text="A lesson of the classroom's course to complete (its slug).",
    )
    question_ids = serializers.ListField(
        child=StrictIntegerField(min_value=1),
        required=False,
        max_length=200,
        help_text="Questions of the classroom's course to answer correctly.",
    )
    due_at = serializers.DateTimeField(help_text="ISO 8601 with an offset.")


class LearnerDoneSerializer(serializers.Serializer[Any]):
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    done = serializers.BooleanField()


class AssignmentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    title = serializers.CharField()
    lesson = serializers.CharField(allow_null=True)
    question_ids = serializers.ListField(child=serializers.IntegerField())
    due_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    done = serializers.BooleanField(
        allow_null=True, help_text="Whether the caller did it in time; null for the teacher."
    )
    learners = LearnerDoneSerializer(
        many=True, required=False, help_text="Each learner's completion; for the teacher only."
    )


def assignment_shape(assignment: Assignment) -> dict[str, Any]:
    return {
        "id": assignment.pk,
        "title": assignment.title,
        "lesson": assignment.lesson.slug if assignment.lesson else None,
        "question_ids": assignment.question_ids,
        "due_at": assignment.due_at,
        "created_at": assignment.created_at,
    }


class AssignmentListView(generics.GenericAPIView[Assignment]):
    permission_classes = [IsAuthenticated]
    queryset = Assignment.objects.none()  # for the schema; rows come from the selectors
    serializer_class = AssignmentSerializer

    @extend_schema(
        responses={200: AssignmentSerializer(many=True)},
        summary="The classroom's assignments: each learner's completion for the teacher, "
        "the caller's own for a member",
    )
    def get(self, request: Request, classroom_id: int) -> Response:
        access = classroom_or_404(request, classroom_id)
        classroom = access.classroom
        page = list(
            self.paginate_queryset(course_selectors.classroom_assignments(classroom=classroom))
            or []
        )
        rows = [assignment_shape(a) for a in page]
        if access.is_teacher:
            members = [m.user for m in course_selectors.classroom_members(classroom=classroom)]
            ids = [m.pk for m in members]
            done = assignments_done(assignments=page, user_ids=ids)
            for row in rows:
                row["done"] = None
                row["learners"] = [
                    {"user_id": m.pk, "username": m.username, "done": done[(row["id"], m.pk)]}
                    for m in members
                ]
        else:
            me = [request.user.pk]
            done = assignments_done(assignments=page, user_ids=me)
            for row in rows:
                row["done"] = done.get((row["id"], request.user.pk), False)
        return self.get_paginated_response(AssignmentSerializer(rows, many=True).data)

    @extend_schema(
        request=AssignmentInSerializer,
        responses={201: AssignmentSerializer},
        summary="Set an assignment: a lesson and/or questions, with a due time (the teacher)",
    )
    def post(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        body = AssignmentInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            assignment = course_services.assignment_create(
                classroom=access.classroom, **body.validated_data
            )
        except course_services.ClassroomRefused as refused:
            raise refusal_problem(refused) from None
        row = {**assignment_shape(assignment), "done": None, "learners": []}
        return Response(AssignmentSerializer(row).data, status=status.HTTP_201_CREATED)


# --- progress ---------------------------------------------------------------------------------


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
    answers = serializers.IntegerField(help_text="Answers to the course's questions, any mode.")
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
    renderer_classes = [JSONRenderer, ProblemJSONRenderer, CSVRenderer]

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
    )
    def get(self, request: Request, classroom_id: int) -> Any:
        access = teacher_or_403(request, classroom_id)
        ProgressQuery(data=request.query_params).is_valid(raise_exception=True)
        learners = [
            asdict(row)
            for row in classroom_progress(classroom=access.classroom, now=timezone.now())
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


# --- item analysis ----------------------------------------------------------------------------


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
    )
    def get(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        items = [asdict(item) for item in classroom_items(classroom=access.classroom)]
        page = self.paginate_queryset(items)  # type: ignore[arg-type]
        return self.get_paginated_response(page)
