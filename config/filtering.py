from typing import Any

import django_filters
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
