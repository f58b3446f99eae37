"""Why an answer was refused. Raised by services before anything is written; the API turns
each into a problem document naming the field."""

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


def idempotency_mismatch() -> AnswerRefused:
    return AnswerRefused(
        422,
        None,
        "idempotency_key_reused",
        "This idempotency key was already used for a different request. "
        "Use a new key (or client_id) for a new answer.",
    )


def idempotency_in_progress() -> AnswerRefused:
    return AnswerRefused(
        409,
        None,
        "request_in_progress",
        "A request with this idempotency key is still being processed. Retry in a moment.",
    )


def already_answered() -> AnswerRefused:
    return AnswerRefused(
        409,
        "client_id",
        "already_answered",
        "An answer with this client_id was stored before; it is not counted again. "
        "Use a new client_id for a new answer.",
    )
