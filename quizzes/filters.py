"""The question bank's list filters (django-filter), validated: a bad value is a 400."""

from typing import Any

import django_filters
from django.db.models import Q, QuerySet

from config.filtering import StrictBooleanFilter, StrictFilterSet, UpdatedSinceFilter
from engine import FAMILIES
from quizzes.models import Question


class QuestionFilter(StrictFilterSet):
    lesson = django_filters.CharFilter(
        field_name="lesson__slug", max_length=80, help_text="The lesson's slug."
    )
    topic = django_filters.ChoiceFilter(choices=Question.Topic.choices)
    kind = django_filters.ChoiceFilter(choices=Question.Kind.choices)
    difficulty = django_filters.NumberFilter(min_value=1, max_value=5)
    interview = StrictBooleanFilter(
        help_text="true: only questions of the interview bank; false: only the others."
    )
    generator = django_filters.ChoiceFilter(choices=[(name, name) for name in sorted(FAMILIES)])
    search = django_filters.CharFilter(
        method="search_prompts", max_length=100, help_text="Words in the prompt or the key."
    )
    updated_since = UpdatedSinceFilter(field_name="updated_at", lookup_expr="gt")

    class Meta:
        model = Question
        fields: list[str] = []

    def search_prompts(self, queryset: QuerySet[Question], name: str, value: str) -> Any:
        return queryset.filter(Q(prompt_markdown__icontains=value) | Q(key__icontains=value))
