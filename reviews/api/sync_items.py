"""Answers and the items of an offline sync, checked as plain dicts.

A batch holds up to 1,000 reviews, and a DRF serializer per item costs more than applying the
review; a single answer's serializer cost about a tenth of the whole request, mostly in making
its fields afresh. These checks take and refuse exactly what `OfflineReviewSerializer` (which
documents an item) does, with the same field names, codes and messages, in the same order, and
take exactly what `AnswerInSerializer` takes; tests hold them together. An item with any bad
field is refused whole and never holds back the others; an answer with one is handed to its
serializer, which says what is wrong.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework.utils.timezone import valid_datetime  # type: ignore[import-untyped]

from config.fields import LARGEST_INTEGER
from reviews import services
from reviews.models import Answer
from reviews.sync import OfflineReview

_MISSING = object()
_SURROGATE = re.compile("[\ud800-\udfff]")
_RATINGS = frozenset(Answer.Rating.values)
_MODES = frozenset(Answer.Mode.values)
_DATETIME_FORMAT = "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]"

Error = tuple[str, str, str]
"""(where under the field, e.g. "" or ".2"; code; message)"""


class _Invalid(Exception):
    def __init__(self, *errors: Error) -> None:
        self.errors = errors


def _invalid(code: str, message: str) -> _Invalid:
    return _Invalid(("", code, message))


_NULL = ("null", "This field may not be null.")


def _text(value: Any, *, max_length: int, allow_blank: bool, trim: bool) -> str:
    # JSON numbers are taken as their text, as DRF's CharField does.
    if value == "" or (trim and str(value).strip() == ""):
        if not allow_blank:
            raise _invalid("blank", "This field may not be blank.")
        return ""
    if value is None:
        raise _invalid(*_NULL)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _invalid("invalid", "Not a valid string.")
    text = str(value).strip() if trim else str(value)
    errors: list[Error] = []
    if len(text) > max_length:
        errors.append(
            ("", "max_length", f"Ensure this field has no more than {max_length} characters.")
        )
    if "\x00" in text:
        errors.append(("", "null_characters_not_allowed", "Null characters are not allowed."))
    if not text.isascii() and (surrogate := _SURROGATE.search(text)):
        code_point = ord(surrogate.group())
        errors.append(
            (
                "",
                "surrogate_characters_not_allowed",
                f"Surrogate characters are not allowed: U+{code_point:X}.",
            )
        )
    if errors:
        raise _Invalid(*errors)
    return text


def _whole(value: Any, *, low: int, high: int | None = None) -> int:
    if value is None:
        raise _invalid(*_NULL)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid("invalid", "Must be a whole number.")
    if high is not None and value > high:
        raise _invalid("max_value", f"Ensure this value is less than or equal to {high}.")
    if value < low:
        raise _invalid("min_value", f"Ensure this value is greater than or equal to {low}.")
    return value


def _choice(value: Any, choices: frozenset[str], message: str) -> str:
    if value is None:
        raise _invalid(*_NULL)
    if (text := str(value)) in choices:
        return text
    raise _invalid("invalid_choice", message)


def _response(value: Any) -> str:
    return _text(value, max_length=2000, allow_blank=True, trim=False)


def _variant(value: Any) -> str:
    return _text(value, max_length=500, allow_blank=False, trim=True)


def _choice_ids(value: Any) -> list[int]:
    if value is None:
        raise _invalid(*_NULL)
    if not isinstance(value, list):
        raise _invalid(
            "not_a_list", f'Expected a list of items but got type "{type(value).__name__}".'
        )
    picked: list[int] = []
    errors: list[Error] = []
    for position, item in enumerate(value):
        try:
            picked.append(_whole(item, low=1, high=LARGEST_INTEGER))
        except _Invalid as bad:
            errors += [(f".{position}", code, message) for _, code, message in bad.errors]
    if errors:
        raise _Invalid(*errors)
    if len(picked) > 8:
        raise _invalid("max_length", "Ensure this field has no more than 8 elements.")
    return picked


def _self_rating(value: Any) -> str:
    return _choice(value, _RATINGS, "Rate it again, hard, good or easy.")


def _mode(value: Any) -> str:
    return _choice(value, _MODES, "The mode is review or practice.")


def _duration_ms(value: Any) -> int:
    return _whole(value, low=0, high=86_400_000)


def _client_id(value: Any) -> uuid.UUID:
    if value is None:
        raise _invalid(*_NULL)
    try:
        if isinstance(value, int):
            return uuid.UUID(int=value)
        if isinstance(value, str):
            return uuid.UUID(hex=value)
    except ValueError:
        pass
    raise _invalid("invalid", "Must be a valid UUID.")


def _question(value: Any) -> int:
    return _whole(value, low=1, high=LARGEST_INTEGER)


def _reveal(value: Any) -> int:
    return _whole(value, low=1, high=LARGEST_INTEGER)


def _reviewed_at(value: Any) -> datetime:
    if value is None:
        raise _invalid(*_NULL)
    try:
        parsed = parse_datetime(value)
    except (ValueError, TypeError):
        parsed = None
    if parsed is None:
        raise _invalid(
            "invalid",
            f"Datetime has wrong format. Use one of these formats instead: {_DATETIME_FORMAT}.",
        )
    zone = timezone.get_current_timezone()
    if timezone.is_aware(parsed):
        try:
            parsed = parsed.astimezone(zone)
        except OverflowError:
            raise _invalid("overflow", "Datetime value out of range.") from None
    else:
        parsed = timezone.make_aware(parsed, zone)
        if not valid_datetime(parsed):
            raise _invalid("make_aware", f'Invalid datetime for the timezone "{zone}".')
    # The text must carry its offset: a bare local time is ambiguous for an offline device.
    if isinstance(value, str) and not (value.endswith("Z") or value[-6:-5] in "+-"):
        raise _invalid("invalid", "Give the time with its offset, e.g. ...T09:30:00Z.")
    return parsed


# In the order the serializer reports them: (name, check, required).
_FIELDS: tuple[tuple[str, Callable[[Any], Any], bool], ...] = (
    ("response", _response, False),
    ("choice_ids", _choice_ids, False),
    ("variant", _variant, False),
    ("self_rating", _self_rating, False),
    ("mode", _mode, False),
    ("duration_ms", _duration_ms, False),
    ("client_id", _client_id, True),
    ("reveal", _reveal, False),
    ("question", _question, True),
    ("reviewed_at", _reviewed_at, True),
)


_ANSWER_FIELDS = tuple(
    (name, check) for name, check, _ in _FIELDS if name not in ("question", "reviewed_at")
)


def answer_submitted(body: Any) -> services.Submitted | None:
    """A POST answer's body as `AnswerInSerializer` takes it (`mode` review unless given), or
    None when it has anything the serializer would refuse: the caller runs the serializer
    then, for its errors."""
    if not isinstance(body, dict):
        return None
    values: dict[str, Any] = {}
    try:
        for name, check in _ANSWER_FIELDS:
            value = body.get(name, _MISSING)
            if value is not _MISSING:
                values[name] = check(value)
    except _Invalid:
        return None
    return services.Submitted(**values)


def offline_review(*, index: int, item: Any) -> OfflineReview | dict[str, Any]:
    """The item as a review to apply, or its result as refused, naming each bad field."""
    if not isinstance(item, dict):
        # null among the items too: it is reported here, like any other bad item.
        return {
            "client_id": None,
            "status": "invalid",
            "errors": [
                {
                    "field": None,
                    "code": "not_an_object",
                    "message": "Send each review as an object.",
                }
            ],
        }
    values: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    for name, check, required in _FIELDS:
        value = item.get(name, _MISSING)
        if value is _MISSING:
            if required:
                errors.append(
                    {"field": name, "code": "required", "message": "This field is required."}
                )
            continue
        try:
            values[name] = check(value)
        except _Invalid as bad:
            errors += [
                {"field": name + where, "code": code, "message": message}
                for where, code, message in bad.errors
            ]
    if errors:
        # Named back only when it is one: the result is stored, and must hold nothing odd.
        named = values.get("client_id")
        return {
            "client_id": None if named is None else str(named),
            "status": "invalid",
            "errors": errors,
        }
    client_id = values["client_id"]
    return OfflineReview(
        index=index,
        client_id=client_id,
        question_id=values["question"],
        reviewed_at=values["reviewed_at"],
        submitted=services.Submitted(
            response=values.get("response"),
            choice_ids=values.get("choice_ids"),
            variant=values.get("variant"),
            self_rating=values.get("self_rating"),
            duration_ms=values.get("duration_ms"),
            client_id=client_id,
            reveal=values.get("reveal"),
        ),
    )


def offline_reviews(
    items: list[Any],
) -> tuple[list[OfflineReview], dict[int, dict[str, Any]]]:
    """The batch's good reviews, and the refused ones' results by position."""
    reviews: list[OfflineReview] = []
    refused: dict[int, dict[str, Any]] = {}
    for index, item in enumerate(items):
        checked = offline_review(index=index, item=item)
        if isinstance(checked, OfflineReview):
            reviews.append(checked)
        else:
            refused[index] = checked
    return reviews, refused
