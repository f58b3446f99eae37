"""The interview bank over the API, open to everyone: its categories with counts per level, and
its questions with their model answers, key points, follow-ups and related questions, by
category and level, searched, or changed since a moment (an app keeping a copy offline)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import django_filters
from django.db.models import Max, QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.conditional import ConditionalGet
from config.filtering import StrictFilterSet, UpdatedSinceFilter
from quizzes import interview as bank
from quizzes.api.serializers import CodingSerializer
from quizzes.coding import coding_shape
from quizzes.models import InterviewCategory, Level, Question


def bank_changed_at() -> datetime | None:
    """When a bank category or question last changed, archived ones included. One query."""
    times = InterviewCategory.objects.aggregate(
        category=Max("updated_at"), question=Max("questions__updated_at")
    )
    return max((t for t in times.values() if t is not None), default=None)


class LevelCountsSerializer(serializers.Serializer[Any]):
    junior = serializers.IntegerField()
    mid = serializers.IntegerField()
    senior = serializers.IntegerField()


class CategorySerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    title = serializers.CharField()
    summary = serializers.CharField()
    counts = LevelCountsSerializer()


class RelatedSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()


class BankQuestionSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    key = serializers.CharField()
    category = serializers.CharField(source="category.slug")
    level = serializers.ChoiceField(choices=Level.choices)
    kind = serializers.ChoiceField(
        choices=[Question.Kind.FREE_TEXT, Question.Kind.NUMERIC, Question.Kind.CODE],
        help_text="free_text: answered in words and rated by key points; numeric: one number; "
        "code: a function, graded by hidden tests.",
    )
    question_html = serializers.CharField(source="prompt_html")
    model_answer_html = serializers.CharField()
    notes_html = serializers.CharField(source="entry.notes_html")
    key_points = serializers.ListField(child=serializers.CharField(), source="entry.key_points")
    wrong_turns = serializers.ListField(child=serializers.CharField(), source="entry.wrong_turns")
    follow_ups = serializers.ListField(child=serializers.CharField(), source="entry.follow_ups")
    related = serializers.ListField(
        child=serializers.CharField(), source="entry.related", help_text="Keys of bank questions."
    )
    sources = serializers.ListField(child=serializers.CharField(), source="entry.sources")
    diagram = serializers.CharField(source="entry.diagram", help_text="A diagram's name, or ''.")
    lesson = serializers.SerializerMethodField(
        help_text="The course lesson that teaches it, as course/lesson slugs; null if none."
    )
    solution_steps = serializers.ListField(child=serializers.CharField())
    code = serializers.SerializerMethodField(
        help_text="A coding question's function, starter code and visible examples; null for "
        "other kinds. Its model solution is shown after a submission."
    )
    updated_at = serializers.DateTimeField()

    @extend_schema_field(CodingSerializer(allow_null=True))
    def get_code(self, question: Question) -> dict[str, Any] | None:
        return coding_shape(question) if question.kind == Question.Kind.CODE else None

    def get_lesson(self, question: Question) -> str | None:
        lesson = question.entry.teaching_lesson
        return f"{lesson.course.slug}/{lesson.slug}" if lesson else None


class BankQuestionFilter(StrictFilterSet):
    category = django_filters.CharFilter(
        field_name="category__slug", max_length=80, help_text="The category's slug."
    )
    level = django_filters.ChoiceFilter(choices=Level.choices)
    search = django_filters.CharFilter(
        method="searching",
        max_length=200,
        help_text="Words in the question, its model answer, key points or notes; best first.",
    )
    updated_since = UpdatedSinceFilter(field_name="updated_at", lookup_expr="gt")

    class Meta:
        model = Question
        fields: list[str] = []

    def searching(self, queryset: QuerySet[Question], name: str, value: str) -> Any:
        return queryset  # searched by the view once filtered, so that the best come first


@extend_schema_view(
    get=extend_schema(
        summary="The interview bank's categories, with questions counted per level",
        operation_id="listInterviewCategories",
    )
)
class CategoryListView(ConditionalGet, APIView):
    permission_classes = [AllowAny]

    def last_modified(self, request: Request) -> datetime | None:
        return bank_changed_at()

    @extend_schema(responses={200: CategorySerializer(many=True)})
    def get(self, request: Request) -> Response:
        rows = [
            {
                "slug": row.category.slug,
                "title": row.category.title,
                "summary": row.category.summary,
                "counts": row.counts,
            }
            for row in bank.categories()
        ]
        return Response(CategorySerializer(rows, many=True).data)


@extend_schema_view(
    get=extend_schema(
        summary="The interview bank's questions, open to everyone: by category and level, "
        "searched (best matches first), or changed since a moment",
        operation_id="listInterviewQuestions",
    )
)
class BankQuestionListView(ConditionalGet, generics.ListAPIView[Question]):
    permission_classes = [AllowAny]
    serializer_class = BankQuestionSerializer
    filterset_class = BankQuestionFilter

    def get_queryset(self) -> Any:
        return Question.objects.interview_bank().select_related("entry__teaching_lesson__course")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Filtered first, then searched: the best matches come first, a page read at a time.
        questions = self.filter_queryset(self.get_queryset())
        listing = bank.searched(questions, request.query_params.get("search", ""))
        page = self.paginate_queryset(listing)  # type: ignore[arg-type]
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def last_modified(self, request: Request) -> datetime | None:
        return bank_changed_at()
