"""Throttles that fail open: when the cache (Redis) is unreachable, a request is let through
and the failure logged, so the request path never waits on or fails with Redis.

Anonymous callers are told apart by `config.clients.client_address` (never by a header they
control); each throttle notes its policy and what is left of it on the request, and
`RateLimitHeaders` writes that into the response as `RateLimit-Policy` and `RateLimit`
(draft-ietf-httpapi-ratelimit-headers-11).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from redis.exceptions import RedisError
from rest_framework import throttling

from config.clients import client_address

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RateLimit:
    """One quota policy and where the caller stands in it."""

    policy: str
    limit: int
    window: int  # seconds
    remaining: int
    reset: int  # seconds until a request of the window is given back

    def policy_item(self) -> str:
        return f'"{self.policy}";q={self.limit};w={self.window}'

    def limit_item(self) -> str:
        return f'"{self.policy}";r={self.remaining};t={self.reset}'


def note_rate_limit(request: Any, rate_limit: RateLimit) -> None:
    """Remembers `rate_limit` on the Django request, for the response's headers."""
    django_request = getattr(request, "_request", request)
    notes: list[RateLimit] = getattr(django_request, "rate_limits", [])
    django_request.rate_limits = [*notes, rate_limit]


class FailOpen:
    scope: str | None
    num_requests: int
    duration: int
    history: list[float]
    now: float

    def get_ident(self, request: Any) -> str:
        return client_address(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            allowed: bool = super().allow_request(request, view)  # type: ignore[misc]
        except (RedisError, OSError):
            logger.warning("throttle cache unreachable; letting the request through", exc_info=True)
            return True
        if getattr(self, "key", None) is not None and hasattr(self, "history"):
            self._note(request, allowed)
        return allowed

    def _note(self, request: Any, allowed: bool) -> None:
        used = len(self.history)  # on success, this request is in it already
        oldest = self.history[-1] if self.history else self.now
        note_rate_limit(
            request,
            RateLimit(
                policy=self.scope or "default",
                limit=self.num_requests,
                window=self.duration,
                remaining=max(self.num_requests - used, 0) if allowed else 0,
                reset=max(math.ceil(oldest + self.duration - self.now), 0),
            ),
        )


class ScopedRateThrottle(FailOpen, throttling.ScopedRateThrottle):
    pass


class SimpleRateThrottle(FailOpen, throttling.SimpleRateThrottle):
    pass


class AnonymousRateThrottle(SimpleRateThrottle):
    """Anonymous callers, by address; a subclass names the `scope`."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SignedInRateThrottle(SimpleRateThrottle):
    """Signed-in callers, by user wherever they are; a subclass names the `scope`."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class RateLimitHeaders:
    """Middleware: the policies that applied to a request, and what is left of each."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        notes: list[RateLimit] = getattr(request, "rate_limits", [])
        if notes:
            # A response that set its own (a sign-in lockout) keeps them, after these.
            policies = [note.policy_item() for note in notes]
            limits = [note.limit_item() for note in notes]
            response["RateLimit-Policy"] = ", ".join(
                [*policies, *_own(response, "RateLimit-Policy")]
            )
            response["RateLimit"] = ", ".join([*limits, *_own(response, "RateLimit")])
        return response


def _own(response: HttpResponseBase, header: str) -> list[str]:
    return [response[header]] if header in response else []


class PageThrottled(Exception):
    """A web page's write over its rate; the site answers with its 429 page."""

    def __init__(self, wait: int) -> None:
        super().__init__(f"Try again in {wait} seconds.")
        self.wait = wait


class _PageThrottle(SimpleRateThrottle):
    """A page's quota: signed-in callers by user, others by address."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        super().__init__()

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = getattr(request, "user", None)
        ident = user.pk if user is not None and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def throttle_page(request: HttpRequest, scope: str) -> None:
    """Counts a web page's write against the API's quota of the same `scope` (one budget for
    both), and raises `PageThrottled` when it is spent."""
    throttle = _PageThrottle(scope)
    if not throttle.allow_request(request, None):
        raise PageThrottled(math.ceil(throttle.wait() or 1))
