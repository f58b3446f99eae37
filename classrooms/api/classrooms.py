"""Classrooms: create and manage (the teacher), join and leave (learners).

A classroom the caller neither teaches nor belongs to is 404, as if it did not exist; one they
belong to but may not change is 403.
"""

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from classrooms import selectors, services
from classrooms.models import Classroom, Membership
from config.problems import Problem
from config.throttles import ScopedRateThrottle
from course.models import Course

# --- serializers ----------------------------------------------------------------------------


class ClassroomSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    course = serializers.CharField(help_text="The course's slug.")
    role = serializers.ChoiceField(choices=["teacher", "member"], help_text="The caller's role.")
    teacher = serializers.CharField(help_text="The teacher's username.")
    join_code = serializers.CharField(
        allow_null=True, help_text="What learners type to join; only the teacher sees it."
    )
    member_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    archived_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When the teacher archived it (no joining, no assignments shown); null if live.",
    )

    @staticmethod
    def shape(
        classroom: Classroom, *, user: Any, member_count: int | None = None
    ) -> dict[str, Any]:
        teaches = classroom.teacher_id == user.pk
        count = getattr(classroom, "member_count", None) if member_count is None else member_count
        return {
            "id": classroom.pk,
            "name": classroom.name,
            "course": classroom.course.slug,
            "role": selectors.Role.TEACHER if teaches else selectors.Role.MEMBER,
            "teacher": classroom.teacher.username,
            "join_code": classroom.join_code if teaches else None,
            "member_count": count or 0,
            "created_at": serializers.DateTimeField().to_representation(classroom.created_at),
            "archived_at": serializers.DateTimeField().to_representation(classroom.archived_at)
            if classroom.archived_at
            else None,
        }


class SlugLookupField(serializers.SlugRelatedField[Any]):
    """A slug looked up in the database; text no row can hold (a NUL character, which
    PostgreSQL refuses in a query) is simply not found."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data)
        return super().to_internal_value(data)


class ClassroomCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=120)
    course = SlugLookupField(
        slug_field="slug",
        queryset=Course.objects.live(),
        error_messages={"does_not_exist": "There is no course '{value}'."},
        help_text="The course's slug.",
    )


class ClassroomUpdateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=120)


class JoinSerializer(serializers.Serializer[Any]):
    join_code = serializers.CharField(
        max_length=32, help_text="The code from the teacher; case, spaces and dashes are ignored."
    )


class MembershipSerializer(serializers.Serializer[Any]):
    classroom = ClassroomSerializer()
    joined_at = serializers.DateTimeField()


class MemberSerializer(serializers.ModelSerializer[Membership]):
    user_id = serializers.IntegerField()
    username = serializers.CharField(source="user.username")

    class Meta:
        model = Membership
        fields = ("user_id", "username", "joined_at")


# --- access -----------------------------------------------------------------------------------


def classroom_or_404(request: Request, classroom_id: int) -> selectors.ClassroomAccess:
    """The classroom as the caller may see it; a 404 when they teach it not and belong not."""
    try:
        return selectors.classroom_access(user=request.user, classroom_id=classroom_id)
    except Classroom.DoesNotExist:
        raise Problem(
            status_code=404,
            slug="not-found",
            title="Not found",
            detail=f"You have no classroom {classroom_id}.",
        ) from None


def teacher_or_403(request: Request, classroom_id: int) -> selectors.ClassroomAccess:
    """The classroom, when the caller teaches it; 403 for a member, 404 for anyone else."""
    access = classroom_or_404(request, classroom_id)
    if not access.is_teacher:
        raise Problem(
            status_code=403,
            slug="forbidden",
            title="Not allowed",
            detail="Only the classroom's teacher can do this.",
        )
    return access


def refusal_problem(refused: services.ClassroomRefused) -> Problem:
    if refused.code == "unknown_code":
        return Problem.invalid(
            field=refused.field,
            code=refused.code,
            message=refused.message,
            status_code=404,
            slug="not-found",
            title="No classroom has this code",
        )
    return Problem.invalid(field=refused.field, code=refused.code, message=refused.message)


# --- views ------------------------------------------------------------------------------------


class ClassroomListView(generics.GenericAPIView[Classroom]):
    permission_classes = [IsAuthenticated]
    serializer_class = ClassroomSerializer

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return Classroom.objects.none()
        return selectors.classrooms_of(user=self.request.user)

    @extend_schema(
        responses={200: ClassroomSerializer(many=True)},
        summary="The classrooms the caller teaches or belongs to, with their role",
        operation_id="listClassrooms",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        rows = [ClassroomSerializer.shape(c, user=request.user) for c in page or []]
        return self.get_paginated_response(rows)

    @extend_schema(
        request=ClassroomCreateSerializer,
        responses={201: ClassroomSerializer},
        summary="Create a classroom for a course; the caller teaches it",
        operation_id="createClassroom",
    )
    def post(self, request: Request) -> Response:
        body = ClassroomCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        classroom = services.classroom_create(teacher=request.user, **body.validated_data)
        return Response(
            ClassroomSerializer.shape(classroom, user=request.user, member_count=0),
            status=status.HTTP_201_CREATED,
        )


class ClassroomDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: ClassroomSerializer}, summary="One classroom", operation_id="getClassroom"
    )
    def get(self, request: Request, classroom_id: int) -> Response:
        access = classroom_or_404(request, classroom_id)
        return Response(ClassroomSerializer.shape(access.classroom, user=request.user))

    @extend_schema(
        request=ClassroomUpdateSerializer,
        responses={200: ClassroomSerializer},
        summary="Rename the classroom (the teacher)",
        operation_id="renameClassroom",
    )
    def patch(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        body = ClassroomUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        classroom = services.classroom_rename(classroom=access.classroom, **body.validated_data)
        return Response(ClassroomSerializer.shape(classroom, user=request.user))

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Delete the classroom with its memberships and assignments (the teacher)",
        operation_id="deleteClassroom",
    )
    def delete(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        services.classroom_delete(classroom=access.classroom)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RotateCodeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: ClassroomSerializer},
        summary="Give the classroom a new join code; the old one stops working (the teacher)",
        operation_id="rotateJoinCode",
    )
    def post(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        classroom = services.classroom_rotate_code(classroom=access.classroom)
        return Response(ClassroomSerializer.shape(classroom, user=request.user))


class ArchiveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: ClassroomSerializer},
        summary="Archive the classroom: its code stops joining, its Pro seats are handed back, "
        "its learners and figures stay (the teacher); archiving twice changes nothing",
        operation_id="archiveClassroom",
    )
    def post(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        classroom = services.classroom_archive(classroom=access.classroom)
        return Response(ClassroomSerializer.shape(classroom, user=request.user))


class RestoreView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: ClassroomSerializer},
        summary="Bring an archived classroom back as it was (the teacher)",
        operation_id="restoreClassroom",
    )
    def post(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        classroom = services.classroom_restore(classroom=access.classroom)
        return Response(ClassroomSerializer.shape(classroom, user=request.user))


class JoinView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "join"

    @extend_schema(
        request=JoinSerializer,
        responses={
            201: MembershipSerializer,
            200: OpenApiResponse(MembershipSerializer, description="Already a member."),
        },
        summary="Join a classroom with its code",
        operation_id="joinClassroom",
    )
    def post(self, request: Request) -> Response:
        body = JoinSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            membership, created = services.classroom_join(
                user=request.user, join_code=body.validated_data["join_code"]
            )
        except services.ClassroomRefused as refused:
            raise refusal_problem(refused) from None
        count = Membership.objects.filter(classroom_id=membership.classroom_id).count()
        return Response(
            {
                "classroom": ClassroomSerializer.shape(
                    membership.classroom, user=request.user, member_count=count
                ),
                "joined_at": serializers.DateTimeField().to_representation(membership.joined_at),
            },
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class LeaveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Leave a classroom (a member)",
        operation_id="leaveClassroom",
    )
    def post(self, request: Request, classroom_id: int) -> Response:
        access = classroom_or_404(request, classroom_id)
        if access.is_teacher:
            raise Problem(
                status_code=403,
                slug="forbidden",
                title="Not allowed",
                detail="A teacher cannot leave their own classroom; delete it instead.",
            )
        services.classroom_leave(classroom=access.classroom, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberListView(generics.GenericAPIView[Membership]):
    permission_classes = [IsAuthenticated]
    queryset = Membership.objects.none()  # for the schema; rows come from the selectors
    serializer_class = MemberSerializer

    @extend_schema(
        responses={200: MemberSerializer(many=True)},
        summary="The classroom's learners (the teacher)",
        operation_id="listMembers",
    )
    def get(self, request: Request, classroom_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        page = self.paginate_queryset(selectors.classroom_members(classroom=access.classroom))
        return self.get_paginated_response(MemberSerializer(page, many=True).data)


class MemberRemoveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Remove a learner from the classroom",
        operation_id="removeMember",
    )
    def delete(self, request: Request, classroom_id: int, user_id: int) -> Response:
        access = teacher_or_403(request, classroom_id)
        if not services.member_remove(classroom=access.classroom, user_id=user_id):
            raise Problem(
                status_code=404,
                slug="not-found",
                title="Not found",
                detail=f"User {user_id} is not a member of this classroom.",
            )
        return Response(status=status.HTTP_204_NO_CONTENT)
