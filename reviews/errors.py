"""Why a request that records learning was refused, beyond the grading refusals of
`quizzes.errors`; the API turns each into a problem document."""

from quizzes.errors import AnswerRefused, invalid_field


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


def missing_reveal() -> AnswerRefused:
    return invalid_field(
        "reveal",
        "required",
        "Show the model answer first (POST .../reveal/), then rate your answer against it "
        "and send the reveal's id.",
    )


def stale_reveal() -> AnswerRefused:
    return invalid_field(
        "reveal",
        "invalid_reveal",
        "This is not your latest look at this question's model answer. Show the model answer "
        "again, then rate your answer.",
    )
