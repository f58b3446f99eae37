from typing import Any

import django_filters
from django import forms
from django.forms import ValidationError


class StrictFilterSet(django_filters.FilterSet):
    """A filter given with no value (`?topic=`) is an error, not silently ignored."""

    def is_valid(self) -> bool:
        valid = bool(super().is_valid())
        for name in self.filters:
            if self.data.get(name) == "":
                self.form.add_error(
                    name, ValidationError("Give a value, or leave it out.", code="blank")
                )
                valid = False
        return valid

    @property
    def errors(self) -> Any:
        return self.form.errors


class TrueOrFalseField(forms.Field):
    """`true` or `false`, as a generated client writes a boolean into a query; anything else
    is an error naming the parameter (django-filter's own field would quietly ignore it)."""

    widget = forms.TextInput  # passes the text through as sent

    def to_python(self, value: Any) -> bool | None:
        if value in (None, ""):
            return None
        if value not in ("true", "false"):
            raise ValidationError("Use true or false.", code="invalid")
        return bool(value == "true")


class StrictBooleanFilter(django_filters.BooleanFilter):
    """A boolean filter, documented as a boolean in the schema."""

    field_class = TrueOrFalseField
