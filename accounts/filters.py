"""List filters on accounts (django-filter), validated: a bad value is a 400."""

from typing import Any

import django_filters
from django.db.models import QuerySet

from accounts.models import Notification
from config.filtering import StrictFilterSet


class NotificationFilter(StrictFilterSet):
    kind = django_filters.ChoiceFilter(choices=Notification.Kind.choices)
    # true/false only: django-filter's boolean filter would quietly ignore any other value.
    unread = django_filters.ChoiceFilter(
        choices=[("true", "true"), ("false", "false")],
        method="by_read",
        help_text="true: only those not marked read yet; false: only those read.",
    )

    class Meta:
        model = Notification
        fields: list[str] = []

    def by_read(self, queryset: QuerySet[Notification], name: str, value: Any) -> Any:
        return queryset.filter(read_at__isnull=value == "true")
