from datetime import datetime
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.conditional import ConditionalGet, shared_when_anonymous
from config.problems import Problem
from config.throttles import ScopedRateThrottle
from course import selectors, services
from course.api.serializers import (
    CourseDetailSerializer,
    CourseSummarySerializer,
    GlossaryTermSerializer,
    LessonDetailSerializer,
    LessonProgressSerializer,
    ReportSerializer,
)
from course.filters import CourseFilter, GlossaryFilter
from course.models import Course, Lesson


@extend_schema_view(get=extend_schema(summary="The courses", operation_id="listCourses"))
class CourseListView(ConditionalGet, generics.ListAPIView[Course]):
    permission_classes = [AllowAny]
    serializer_class = CourseSummarySerializer
    filterset_class = CourseFilter

    def get_queryset(self) -> Any:
        return selectors.course_list()

    def last_modified(self, request: Request) -> datetime | None:
        return selectors.content_changed_at()  # the same list for everyone


class CourseDetailView(ConditionalGet, APIView):
    permission_classes = [AllowAny]

    def last_modified(self, request: Request) -> datetime | None:
        return shared_when_anonymous(request, selectors.content_changed_at)

    @extend_schema(
        responses={200: CourseDetailSerializer},
        summary="A course and its lessons",
        operation_id="getCourse",
    )
    def get(self, request: Request, slug: str) -> Response:
        try:
            course = selectors.course_detail(slug=slug)
        except Course.DoesNotExist:
            raise _not_found("course", slug) from None
        return Response(CourseDetailSerializer(course, context={"request": request}).data)


class LessonDetailView(ConditionalGet, APIView):
    permission_classes = [AllowAny]

    def last_modified(self, request: Request) -> datetime | None:
        return shared_when_anonymous(request, selectors.content_changed_at)

    @extend_schema(
        responses={200: LessonDetailSerializer},
        summary="A lesson; sections closed to the caller come without their body",
        operation_id="getLesson",
    )
    def get(self, request: Request, slug: str) -> Response:
        try:
            page = selectors.lesson_page(slug=slug, user=request.user)
        except Lesson.DoesNotExist:
            raise _not_found("lesson", slug) from None
        return Response(LessonDetailSerializer.shape(page, request.user))


class LessonCompleteView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: LessonProgressSerializer},
        summary="Mark the lesson completed for the caller",
        operation_id="completeLesson",
    )
    def post(self, request: Request, slug: str) -> Response:
        lesson = selectors.live_lesson(slug=slug)
        if lesson is None:
            raise _not_found("lesson", slug)
        try:
            progress = services.lesson_complete(
                user=request.user, lesson=lesson, now=timezone.now()
            )
        except services.ProRequired:
            raise Problem(
                status_code=403,
                slug="pro-required",
                title="This lesson is part of Pro",
                detail=f"'{lesson.title}' needs a Pro plan to complete.",
            ) from None
        return Response(LessonProgressSerializer(progress).data)


@extend_schema_view(
    get=extend_schema(summary="Glossary terms, searchable", operation_id="listGlossaryTerms")
)
class GlossaryView(ConditionalGet, generics.ListAPIView[Any]):
    permission_classes = [AllowAny]
    serializer_class = GlossaryTermSerializer
    filterset_class = GlossaryFilter

    def get_queryset(self) -> Any:
        return selectors.glossary_terms()

    def last_modified(self, request: Request) -> datetime | None:
        return selectors.content_changed_at()  # the same terms for everyone


class ReportCreateView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "reports"

    @extend_schema(
        request=ReportSerializer,
        responses={201: ReportSerializer},
        summary="Report a mistake in a lesson or a question",
        operation_id="reportMistake",
    )
    def post(self, request: Request) -> Response:
        body = ReportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        report = services.report_create(user=request.user, **body.validated_data)
        return Response(ReportSerializer(report).data, status=status.HTTP_201_CREATED)


def _not_found(kind: str, slug: str) -> Problem:
    return Problem(
        status_code=404,
        slug="not-found",
        title="Not found",
        detail=f"There is no {kind} '{slug}'.",
    )
