from datetime import UTC, datetime
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


class AwareDateTimeField(forms.CharField):
    """An ISO 8601 time with its UTC offset (`2026-05-01T12:00:00Z`, `...+02:00`): without
    an offset the moment is ambiguous, so it is refused rather than guessed."""

    default_error_messages = {
        "invalid": "Give an ISO 8601 time with its offset, e.g. 2026-05-01T12:00:00Z.",
        "no_offset": "Add the UTC offset (Z, or e.g. +02:00): without it the time is ambiguous.",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=64, **kwargs)

    def clean(self, value: Any) -> datetime | None:
        text = super().clean(value)  # the text's own checks first: length, NUL characters
        if not text:
            return None
        try:
            moment = datetime.fromisoformat(text)
            utc = moment.astimezone(UTC) if moment.tzinfo is not None else None
        except (ValueError, OverflowError):
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None
        if utc is None:
            raise ValidationError(self.error_messages["no_offset"], code="no_offset")
        return utc


class UpdatedSinceFilter(django_filters.Filter):
    """`?updated_since=`: what changed after that moment, so an app syncs by delta. The
    filterset's `method` says what counts as changed for its rows."""

    field_class = AwareDateTimeField

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "help_text",
            "Only what changed after this moment: ISO 8601 with its offset, "
            "e.g. 2026-05-01T12:00:00Z.",
        )
        super().__init__(**kwargs)


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
