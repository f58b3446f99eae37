"""The glossary's list filters (django-filter), validated: a bad value is a 400."""

from datetime import datetime
from typing import Any

import django_filters
from django.db.models import Exists, OuterRef, Q, QuerySet

from config.filtering import StrictFilterSet, UpdatedSinceFilter
from course.models import Course, GlossaryTerm, Lesson


class CourseFilter(StrictFilterSet):
    updated_since = UpdatedSinceFilter(method="changed_since")

    class Meta:
        model = Course
        fields: list[str] = []

    def changed_since(self, queryset: QuerySet[Course], name: str, value: datetime) -> Any:
        """Courses that changed, or any of whose lessons did (added, changed or archived)."""
        lessons = Lesson.objects.filter(course=OuterRef("pk"), updated_at__gt=value)
        return queryset.filter(Q(updated_at__gt=value) | Exists(lessons))


class GlossaryFilter(StrictFilterSet):
    search = django_filters.CharFilter(
        method="matching",
        max_length=100,
        help_text="Words in the term, an alias or the definition.",
    )
    course = django_filters.CharFilter(
        field_name="course__slug", max_length=80, help_text="Only this course's terms (slug)."
    )
    updated_since = UpdatedSinceFilter(
        method="changed_since",
        help_text="Only terms that may have changed after this moment (ISO 8601 with its "
        "offset): terms keep no change time of their own, so every term of a course whose "
        "glossary changed comes back.",
    )

    class Meta:
        model = GlossaryTerm
        fields: list[str] = []

    def changed_since(self, queryset: QuerySet[GlossaryTerm], name: str, value: datetime) -> Any:
        return queryset.filter(course__updated_at__gt=value)

    def matching(self, queryset: QuerySet[GlossaryTerm], name: str, value: str) -> Any:
        return queryset.filter(
            Q(term__icontains=value)
            | Q(aliases__icontains=value)
            | Q(definition_markdown__icontains=value)
        )
