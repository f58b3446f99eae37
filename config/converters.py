"""Path converters. An id in a path is a row's 64-bit key: a number past that range names no
row, so the path matches nothing (a 404), rather than reaching the database."""

from django.urls import register_converter

LARGEST_ID = 2**63 - 1


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > LARGEST_ID:
            raise ValueError(value)  # no match: the resolver goes on, and finds nothing
        return number

    def to_url(self, value: int) -> str:
        return str(value)


def register() -> None:
    register_converter(IdConverter, "id")
