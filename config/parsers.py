"""JSON request bodies, read defensively.

Nesting is measured before the body is parsed, so a body nested a hundred thousand levels deep
is a 400 instead of a recursion error deep inside the parser. Text the database cannot store
(the NUL character: PostgreSQL refuses it in text and in jsonb) is refused here, for every
endpoint at once, naming the field it was found in.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

import numpy as np
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json as drf_json

from config.problems import Problem

# Deeper than any body the API takes (a sync is four levels), far below Python's recursion.
MAX_DEPTH = 32

# A JSON string, or an unterminated one running to the end of the body: every match attempt at
# a quote succeeds, so stripping strings is one linear pass whatever the body holds.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_OPENERS = np.frombuffer(b"[{", dtype=np.uint8)


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether the arrays and objects of a JSON text nest deeper than `limit` (brackets inside
    strings aside). Linear in the length of the text, with no recursion."""
    if text.count("[") + text.count("{") <= limit:
        return False  # it cannot nest deeper than it has openers
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    if not brackets:
        return False
    steps = np.where(np.isin(np.frombuffer(brackets, dtype=np.uint8), _OPENERS), 1, -1)
    return int(np.cumsum(steps).max()) > limit


def nul_field(data: Any, path: str = "") -> str | None:
    """The path (`reviews.0.response`) of the first text holding a NUL character, "" for the
    body itself, or None when there is none."""
    if isinstance(data, str):
        return path if "\x00" in data else None
    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{path}.{key}" if path else str(key)
            if "\x00" in key:
                return name.replace("\x00", "\\u0000")
            found = nul_field(value, name)
            if found is not None:
                return found
    if isinstance(data, list):
        for index, value in enumerate(data):
            found = nul_field(value, f"{path}.{index}" if path else str(index))
            if found is not None:
                return found
    return None


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        encoding = parsers.get_encoding(parser_context or {})
        try:
            text = codecs.getreader(encoding)(stream).read()
        except ValueError as exc:
            raise ParseError(f"The body is not valid {encoding} text: {exc}") from None
        if too_deep(text):
            raise ParseError(
                f"JSON parse error - the body is nested more than {MAX_DEPTH} levels deep."
            )
        try:
            parse_constant = drf_json.strict_constant if self.strict else None
            data = json.loads(text, parse_constant=parse_constant)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        field = nul_field(data)
        if field is not None:
            raise Problem.invalid(
                field=field or None,
                code="null_characters_not_allowed",
                message="Text may not contain the NUL character (\\u0000).",
            )
        return data
