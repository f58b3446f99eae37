import io
from typing import Any

from django.conf import settings
from rest_framework import parsers

from config.problems import Problem


class JSONParser(parsers.JSONParser):
    """JSON with a size cap, so an oversized body is a 413 before it is parsed."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        length = request.META.get("CONTENT_LENGTH") if request is not None else None
        if length and length.isdigit() and int(length) > limit:
            raise _too_large(limit)
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise _too_large(limit)
        return super().parse(io.BytesIO(body), media_type, parser_context)


def _too_large(limit: int) -> Problem:
    return Problem(
        status_code=413,
        slug="body-too-large",
        title="The request body is too large",
        detail=f"Bodies are limited to {limit // 1024} KiB; send less at a time.",
    )
