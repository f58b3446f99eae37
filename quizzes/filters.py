"""The question bank's list filters (django-filter), validated: a bad value is a 400."""

from typing import Any

import django_filters
from django.db.models import Q, QuerySet

from config.filtering import StrictFilterSet, UpdatedSinceFilter
from engine import FAMILIES
from quizzes.models import Question


class QuestionFilter(StrictFilterSet):
    lesson = django_filters.CharFilter(
        field_name="lesson__slug", max_length=80, help_text="The lesson's slug."
    )
    topic = django_filters.ChoiceFilter(choices=Question.Topic.choices)
    kind = django_filters.ChoiceFilter(choices=Question.Kind.choices)
    difficulty = django_filters.NumberFilter(min_value=1, max_value=5)
    # true/false only: django-filter's boolean filter would quietly ignore any other value.
    interview = django_filters.ChoiceFilter(
        choices=[("true", "true"), ("false", "false")], method="in_interview_bank"
    )
    generator = django_filters.ChoiceFilter(choices=[(name, name) for name in sorted(FAMILIES)])
    search = django_filters.CharFilter(
        method="search_prompts", max_length=100, help_text="Words in the prompt or the key."
    )
    updated_since = UpdatedSinceFilter(field_name="updated_at", lookup_expr="gt")

    class Meta:
        model = Question
        fields: list[str] = []

    def in_interview_bank(self, queryset: QuerySet[Question], name: str, value: Any) -> Any:
        return queryset.filter(interview=value == "true")

    def search_prompts(self, queryset: QuerySet[Question], name: str, value: Any) -> Any:
        return queryset.filter(Q(prompt_markdown__icontains=value) | Q(key__icontains=value))
