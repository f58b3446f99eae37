"""Why an answer was refused. Raised before anything is written; the API turns each into a
problem document naming the field. `reviews.errors` adds the refusals of recording it."""

from dataclasses import dataclass


@dataclass
class AnswerRefused(Exception):
    status: int
    field: str | None
    code: str
    message: str

    def __str__(self) -> str:
        return self.message


def unreadable_number(message: str) -> AnswerRefused:
    return AnswerRefused(422, "response", "unreadable_number", message)


def invalid_variant(message: str) -> AnswerRefused:
    return AnswerRefused(400, "variant", "invalid_variant", message)


def invalid_field(field: str, code: str, message: str) -> AnswerRefused:
    return AnswerRefused(400, field, code, message)
