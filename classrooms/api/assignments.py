"""A classroom's assignments: set by the teacher, with who has done each. Who may see what
is decided by `classrooms.api.classrooms`."""

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from classrooms import selectors, services
from classrooms.api.classrooms import (
    SlugLookupField,
    classroom_or_404,
    refusal_problem,
    teacher_or_403,
)
from classrooms.models import Assignment
from classrooms.progress import assignments_done
from config.fields import StrictIntegerField
from config.problems import Problem
from course.models import Lesson


class AssignmentInSerializer(serializers.Serializer[Any]):
    title = serializers.CharField(max_length=200)
    lesson = SlugLookupField(
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


def assignment_rows(
    access: selectors.ClassroomAccess, assignments: list[Assignment], *, user: Any
) -> list[dict[str, Any]]:
    """The assignments as the caller may see them: with each learner's completion for the
    teacher, with the caller's own for a member. Two queries, however many assignments."""
    rows = [assignment_shape(a) for a in assignments]
    if access.is_teacher:
        members = [m.user for m in selectors.classroom_members(classroom=access.classroom)]
        done = assignments_done(assignments=assignments, user_ids=[m.pk for m in members])
        for row in rows:
            row["done"] = None
            row["learners"] = [
                {"user_id": m.pk, "username": m.username, "done": done[(row["id"], m.pk)]}
                for m in members
            ]
    else:
        done = assignments_done(assignments=assignments, user_ids=[user.pk])
        for row in rows:
            row["done"] = done.get((row["id"], user.pk), False)
    return rows


class AssignmentListView(generics.GenericAPIView[Assignment]):
    permission_classes = [IsAuthenticated]
    queryset = Assignment.objects.none()  # for the schema; rows come from the selectors
    serializer_class = AssignmentSerializer

    @extend_schema(
        responses={200: AssignmentSerializer(many=True)},
        summary="The classroom's assignments: each learner's completion for the teacher, "
        "the caller's own for a member",
        operation_id="listAssignments",
    )
    def get(self, request: Request, classroom_id: int) -> Response:
        access = classroom_or_404(request, classroom_id)
        page = list(
            self.paginate_queryset(selectors.classroom_assignments(classroom=access.classroom))
            or []
        )
        rows = assignment_rows(access, page, user=request.user)
        return self.get_paginated_response(AssignmentSerializer(rows, many=True).data)

    @extend_schema(
        request=AssignmentInSerializer,
        responses={201: AssignmentSerializer},
        summary="Set an assignment: a lesson and/or questions, with a due time (the teacher)",
        operation_id="createAssignment",
    )
    def post(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        body = AssignmentInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            assignment = services.assignment_create(
                classroom=access.classroom, **body.validated_data
            )
        except services.ClassroomRefused as refused:
            raise refusal_problem(refused) from None
        row = {**assignment_shape(assignment), "done": None, "learners": []}
        return Response(AssignmentSerializer(row).data, status=status.HTTP_201_CREATED)


class AssignmentDetailView(APIView):
    permission_classes = [IsAuthenticated]

    def _assignment(self, access: selectors.ClassroomAccess, assignment_id: int) -> Assignment:
        found = (
            selectors.classroom_assignments(classroom=access.classroom)
            .filter(pk=assignment_id)
            .first()
        )
        if found is None:
            raise Problem(
                status_code=404,
                slug="not-found",
                title="Not found",
                detail=f"Classroom {access.classroom.pk} has no assignment {assignment_id}.",
            )
        found.classroom = access.classroom
        return found

    @extend_schema(
        responses={200: AssignmentSerializer},
        summary="One assignment: each learner's completion for the teacher, the caller's own "
        "for a member",
        operation_id="getAssignment",
    )
    def get(self, request: Request, classroom_id: int, assignment_id: int) -> Response:
        access = classroom_or_404(request, classroom_id)
        assignment = self._assignment(access, assignment_id)
        (row,) = assignment_rows(access, [assignment], user=request.user)
        return Response(AssignmentSerializer(row).data)

    @extend_schema(
        request=AssignmentInSerializer(partial=True),
        responses={200: AssignmentSerializer},
        summary="Change an assignment (the teacher): only the fields sent change, under the "
        "rules for setting one; who has done it is worked out again against the new due time",
        operation_id="updateAssignment",
    )
    def patch(self, request: Request, classroom_id: int, assignment_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        assignment = self._assignment(access, assignment_id)
        body = AssignmentInSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        fields = {
            "title": assignment.title,
            "due_at": assignment.due_at,
            "lesson": assignment.lesson,
            "question_ids": assignment.question_ids,
            **body.validated_data,
        }
        try:
            with transaction.atomic():
                services.assignment_update(assignment=assignment, **fields)
        except services.ClassroomRefused as refused:
            raise refusal_problem(refused) from None
        (row,) = assignment_rows(access, [assignment], user=request.user)
        return Response(AssignmentSerializer(row).data)

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Delete an assignment (the teacher); the learners' work stays theirs",
        operation_id="deleteAssignment",
    )
    def delete(self, request: Request, classroom_id: int, assignment_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        services.assignment_delete(assignment=self._assignment(access, assignment_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
