"""List filters on accounts (django-filter), validated: a bad value is a 400."""

import django_filters

from accounts.models import Notification
from config.filtering import StrictBooleanFilter, StrictFilterSet


class NotificationFilter(StrictFilterSet):
    kind = django_filters.ChoiceFilter(choices=Notification.Kind.choices)
    unread = StrictBooleanFilter(
        field_name="read_at",
        lookup_expr="isnull",
        help_text="true: only those not marked read yet; false: only those read.",
    )

    class Meta:
        model = Notification
        fields: list[str] = []
