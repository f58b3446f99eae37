"""Every error the API sends is an RFC 9457 problem document (application/problem+json).

Views and services raise DRF exceptions (or `Problem` for our own kinds); the exception handler
turns each into `{type, title, status, detail, errors?}`. Django-level errors under /api/
(unknown URL, uncaught exception, CSRF failure, bad Host) get the same shape.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from config.problem_types import type_uri

PROBLEM_CONTENT_TYPE = "application/problem+json"

logger = logging.getLogger(__name__)


class ProblemAwareNegotiation(DefaultContentNegotiation):
    """A client that accepts only application/problem+json still gets an answer, rendered as
    JSON. Responses are rendered as application/json alone (errors then say problem+json), so
    the schema never offers problem+json as a success's content type."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        try:
            chosen: tuple[BaseRenderer, str] = super().select_renderer(
                request, renderers, format_suffix
            )
            return chosen
        except exceptions.NotAcceptable:
            json = next((r for r in renderers if isinstance(r, JSONRenderer)), None)
            if json is None or PROBLEM_CONTENT_TYPE not in request.META.get("HTTP_ACCEPT", ""):
                raise
            return json, json.media_type


class Problem(exceptions.APIException):
    """An error of our own kind, with a stable type slug and optional per-field errors."""

    def __init__(
        self,
        *,
        status_code: int,
        slug: str,
        title: str,
        detail: str,
        errors: list[dict[str, Any]] | None = None,
        extensions: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail=detail, code=slug)
        self.status_code = status_code
        self.slug = slug
        self.title = title
        self.errors = errors or []
        self.extensions = extensions or {}

    @classmethod
    def invalid(
        cls,
        *,
        field: str | None,
        code: str,
        message: str,
        status_code: int = 400,
        slug: str = "validation-error",
        title: str = "The request has invalid fields",
    ) -> Problem:
        """A problem about one field, with the message as both detail and error."""
        return cls(
            status_code=status_code,
            slug=slug,
            title=title,
            detail=message,
            errors=[{"field": field, "code": code, "message": message}],
        )


# Seconds a client waits before trying again while the database is away: long enough for a
# restart or a fail-over, short enough that a learner does not give up.
RETRY_UNAVAILABLE_AFTER = 10


def database_unavailable(extensions: dict[str, Any] | None = None) -> Problem:
    return Problem(
        status_code=503,
        slug="service-unavailable",
        title="The service is briefly unavailable",
        detail="We cannot reach our database just now. "
        f"Please try again in {RETRY_UNAVAILABLE_AFTER} seconds.",
        extensions=extensions,
    )


# DRF exception class -> (type slug, title). Order matters: first isinstance match wins.
_KINDS: list[tuple[type[exceptions.APIException], str, str]] = [
    (exceptions.ValidationError, "validation-error", "The request has invalid fields"),
    (exceptions.ParseError, "malformed-request", "The request body could not be read"),
    (exceptions.AuthenticationFailed, "not-authenticated", "Authentication failed"),
    (exceptions.NotAuthenticated, "not-authenticated", "Authentication required"),
    (exceptions.PermissionDenied, "forbidden", "Not allowed"),
    (exceptions.NotFound, "not-found", "Not found"),
    (exceptions.MethodNotAllowed, "method-not-allowed", "Method not allowed"),
    (exceptions.NotAcceptable, "not-acceptable", "Cannot produce the requested format"),
    (exceptions.UnsupportedMediaType, "unsupported-media-type", "Unsupported media type"),
    (exceptions.Throttled, "too-many-requests", "Too many requests"),
]


def problem_body(
    *,
    status_code: int,
    slug: str,
    title: str,
    detail: str,
    errors: list[dict[str, Any]] | None = None,
    extensions: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": type_uri(slug),
        "title": title,
        "status": status_code,
        "detail": detail,
    }
    if errors:
        body["errors"] = errors
    return body | (extensions or {})


def flatten_errors(details: Any, path: str = "") -> list[dict[str, Any]]:
    """DRF's nested {field: [ErrorDetail]} -> [{field: "a.b.0.c", code, message}]."""
    if isinstance(details, dict) and set(details) == {"message", "code"}:
        code = details["code"] or "invalid"
        return [{"field": path or None, "code": code, "message": details["message"]}]
    if isinstance(details, dict):
        out: list[dict[str, Any]] = []
        for key, value in details.items():
            name = "" if key == "non_field_errors" else str(key)
            out += flatten_errors(value, f"{path}.{name}" if path and name else path or name)
        return out
    if isinstance(details, list):
        out = []
        for index, value in enumerate(details):
            nested = isinstance(value, dict) and set(value) != {"message", "code"}
            child = f"{path}.{index}" if nested or isinstance(value, list) else path
            out += flatten_errors(value, child)
        return out
    return [{"field": path or None, "code": "invalid", "message": str(details)}]


def _summary(errors: list[dict[str, Any]]) -> str:
    first = errors[0]
    prefix = f"{first['field']}: " if first["field"] else ""
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{prefix}{first['message']}{more}"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, DjangoValidationError):
        # A service's full_clean() refusing what the serializer let through: still the input.
        exc = exceptions.ValidationError(serializers.as_serializer_error(exc))
    elif isinstance(exc, OperationalError | InterfaceError):
        logger.error("The database is unreachable", exc_info=exc)
        exc = database_unavailable()
    elif isinstance(exc, RequestDataTooBig):
        exc = Problem(
            status_code=413,
            slug="body-too-large",
            title="The request body is too large",
            detail=f"Bodies are limited to {settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024} KiB; "
            "send less at a time.",
        )
    if not isinstance(exc, exceptions.APIException):
        return None  # a real bug: Django's handler500 answers with a problem document

    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
    if wait is not None:
        headers["Retry-After"] = str(int(wait) + 1)
    if exc.status_code == 503:
        headers["Retry-After"] = str(RETRY_UNAVAILABLE_AFTER)

    if isinstance(exc, Problem):
        body = problem_body(
            status_code=exc.status_code,
            slug=exc.slug,
            title=exc.title,
            detail=str(exc.detail),
            errors=exc.errors,
            extensions=exc.extensions,
        )
    else:
        slug, title = next(
            ((s, t) for cls, s, t in _KINDS if isinstance(exc, cls)), ("error", "Request failed")
        )
        errors = None
        if isinstance(exc, exceptions.ValidationError):
            errors = flatten_errors(exc.get_full_details())
            detail = _summary(errors) if errors else "The request is not valid."
        elif isinstance(exc, exceptions.Throttled):
            detail = (
                f"Too many requests. Try again in {int(wait) + 1} seconds."
                if wait is not None
                else "Too many requests. Try again later."
            )
        else:
            detail = str(exc.detail)
        body = problem_body(
            status_code=exc.status_code, slug=slug, title=title, detail=detail, errors=errors
        )
    response = Response(body, status=exc.status_code, headers=headers)
    response.content_type = PROBLEM_CONTENT_TYPE
    return response


def _api_problem(*, status_code: int, slug: str, title: str, detail: str) -> JsonResponse:
    return JsonResponse(
        problem_body(status_code=status_code, slug=slug, title=title, detail=detail),
        status=status_code,
        content_type=PROBLEM_CONTENT_TYPE,
    )


def api_problem(problem: Problem) -> JsonResponse:
    """`problem` as a response, outside DRF (Django's error handlers)."""
    return _api_problem(
        status_code=problem.status_code,
        slug=problem.slug,
        title=problem.title,
        detail=str(problem.detail),
    )


def api_forbidden(request: HttpRequest) -> JsonResponse:
    return _api_problem(
        status_code=403, slug="forbidden", title="Not allowed", detail="You may not do this."
    )


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _with_slash(path: str) -> str | None:
    """`path` with a trailing slash, when that is an endpoint."""
    if path.endswith("/"):
        return None
    try:
        match = resolve(path + "/")
    except Resolver404:
        return None
    return None if match.func is api_not_found else path + "/"


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        right = _with_slash(request.path)
        hint = "" if request.path.endswith("/") else " API paths end in '/'."
        if right:
            hint = f" Did you mean {right}? API paths end in '/'."
        return _api_problem(
            status_code=404,
            slug="not-found",
            title="Not found",
            detail=f"There is nothing at {request.path}.{hint}",
        )
    return defaults.page_not_found(request, exception)


@csrf_exempt
def api_not_found(request: HttpRequest, unmatched: str = "") -> HttpResponse:
    """The last API route: unknown paths are problem documents, with DEBUG on or off. Exempt
    from CSRF, so a POST to a path missing its slash learns the right path, not a CSRF error."""
    return not_found(request)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return _api_problem(
            status_code=400,
            slug="bad-request",
            title="Bad request",
            detail="The request could not be understood.",
        )
    return defaults.bad_request(request, exception)  # type: ignore[arg-type]


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return _api_problem(
            status_code=500,
            slug="server-error",
            title="Something went wrong on our side",
            detail="The error has been logged. Please try again in a moment.",
        )
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if _is_api(request):
        return _api_problem(
            status_code=403,
            slug="csrf-failed",
            title="CSRF check failed",
            detail=f"{reason} Send the csrftoken cookie's value in the X-CSRFToken header.",
        )
    return django_csrf_failure(request, reason)


# --- OpenAPI: document the problem responses every operation can give -------------------------

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
PROBLEM_SCHEMA = {
    "type": "object",
    "description": "An RFC 9457 problem document.",
    "properties": {
        "type": {
            "type": "string",
            "format": "uri",
            "description": "An absolute URI naming the kind of problem; it opens a page that "
            "describes it and what to do.",
        },
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string", "description": "What went wrong, for a person to act on."},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "field": {"type": "string", "nullable": True},
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                },
                "required": ["field", "code", "message"],
            },
        },
    },
    "required": ["type", "title", "status", "detail"],
}

_COMMON = {
    "400": "The request is malformed or has invalid fields.",
    "401": "Authentication is missing or the token is invalid or expired.",
    "403": "The caller may not do this.",
    "404": "Not found (another user's object is also 404).",
    "405": "The method is not allowed here.",
    "406": "The Accept header asks for a format the API does not produce.",
    "415": "The body is not JSON.",
    "429": "Too many requests; see Retry-After.",
    "503": "The database is briefly unreachable; try again after Retry-After.",
}
# What an operation that takes an Idempotency-Key can answer besides.
_IDEMPOTENT = {
    "409": "A request with this idempotency key is still being processed; retry in a moment.",
    "422": "This idempotency key was already used for a different request.",
}
RETRY_AFTER_HEADER = {
    "schema": {"type": "integer", "minimum": 1},
    "description": "Seconds to wait before trying again.",
}


def add_problem_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Every operation documents the errors any request can meet, and every error response,
    documented here or by the view, is a problem document."""
    components = result.setdefault("components", {})
    components.setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    components.setdefault("headers", {})["RetryAfter"] = RETRY_AFTER_HEADER
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            codes = dict(_COMMON)
            if method in {"post", "put", "patch"} or "requestBody" in operation:
                codes["413"] = "The body is too large."
            if any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", [])):
                codes |= _IDEMPOTENT
            for code, description in codes.items():
                responses.setdefault(code, {"description": description})
            for code, response in responses.items():
                if int(code) < 400:
                    continue
                if not response.get("content"):
                    response["content"] = {PROBLEM_CONTENT_TYPE: {"schema": PROBLEM_REF}}
                if code in {"429", "503"}:
                    response["headers"] = {
                        "Retry-After": {"$ref": "#/components/headers/RetryAfter"}
                    }
    return result
