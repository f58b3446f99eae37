"""Query-string serializers that say what is wrong instead of ignoring it."""

from typing import Any

from rest_framework import serializers


class QuerySerializer(serializers.Serializer[Any]):
    """Query parameters. An empty value (`?topic=`) is an error for a field that cannot be
    blank, rather than being taken as "left out" as DRF does for form-style input."""

    def to_internal_value(self, data: Any) -> Any:
        empty = {
            name: ["Give a value, or leave the parameter out."]
            for name, field in self.fields.items()
            if data.get(name) == "" and not getattr(field, "allow_blank", False)
        }
        if empty:
            raise serializers.ValidationError(empty)
        return super().to_internal_value(data)


# JSON bodies: a number is a JSON number and a truth value is true or false. DRF would also
# take "5", 5.0 or "yes"; a client sending those has a bug worth hearing about.


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": "Must be true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


# The largest number a 64-bit integer column holds: no id is larger, and SQLite cannot even
# compare a column with a larger number.
LARGEST_INTEGER = 2**63 - 1


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": "Must be a whole number."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_value", LARGEST_INTEGER)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictFloatField(serializers.FloatField):
    default_error_messages = {"invalid": "Must be a number."}

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return float(super().to_internal_value(data))
