"""The glossary's list filters (django-filter), validated: a bad value is a 400."""

from typing import Any

import django_filters
from django.db.models import Q, QuerySet

from config.filtering import StrictFilterSet
from course.models import GlossaryTerm


class GlossaryFilter(StrictFilterSet):
    search = django_filters.CharFilter(
        method="matching",
        max_length=100,
        help_text="Words in the term, an alias or the definition.",
    )
    course = django_filters.CharFilter(
        field_name="course__slug", max_length=80, help_text="Only this course's terms (slug)."
    )

    class Meta:
        model = GlossaryTerm
        fields: list[str] = []

    def matching(self, queryset: QuerySet[GlossaryTerm], name: str, value: str) -> Any:
        return queryset.filter(
            Q(term__icontains=value)
            | Q(aliases__icontains=value)
            | Q(definition_markdown__icontains=value)
        )
