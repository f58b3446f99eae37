"""JSON request bodies, read defensively.

Nesting is measured before the body is parsed, so a body nested a hundred thousand levels deep
is a 400 instead of a recursion error deep inside the parser. Text the database cannot store
(the NUL character, which PostgreSQL refuses in text and in jsonb, and unpaired surrogates,
which are not UTF-8) is refused here, for every endpoint at once, naming the field.
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
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def _flaw(text: str) -> tuple[str, str] | None:
    """Why the database could not store this text, as (code, message), or None."""
    if "\x00" in text:
        return "null_characters_not_allowed", "Text may not contain the NUL character (\\u0000)."
    if not text.isascii() and _SURROGATE.search(text):
        return (
            "surrogate_characters_not_allowed",
            "Text may not contain an unpaired surrogate (\\ud800 to \\udfff); send UTF-8 text.",
        )
    return None


def unstorable_text(data: Any, path: str = "") -> tuple[str, str, str] | None:
    """The first text in a parsed body the database cannot store, as (path, code, message):
    the path names the field as problem documents do (`reviews.0.response`), "" for the body
    itself. None when every text is fine."""
    if isinstance(data, str):
        flaw = _flaw(data)
        return (path, *flaw) if flaw else None
    items: Any = ()
    if isinstance(data, dict):
        for key in data:
            flaw = _flaw(key)
            if flaw:
                shown = "".join(f"\\u{ord(c):04x}" if _flaw(c) else c for c in key)
                return (f"{path}.{shown}" if path else shown, *flaw)
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    for key, value in items:
        found = unstorable_text(value, f"{path}.{key}" if path else str(key))
        if found:
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
        found = unstorable_text(data)
        if found is not None:
            field, code, message = found
            raise Problem.invalid(field=field or None, code=code, message=message)
        return data
