"""Failed sign-ins counted per username (django-axes), so a guesser spread over many addresses
is slowed as much as one at a single address; the per-address throttle stays in front.

A username with `LOGIN_FAILURE_LIMIT` failures within `LOGIN_LOCKOUT_MINUTES` is refused,
right password or not, until that long after its last counted failure. Names that belong to
nobody are counted and refused the same way, so the answers never tell whether an account
exists. Attempts while refused are not counted, so an attacker cannot keep the real owner
out forever by trying on; the cool-off runs from the last failure before the lock.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from accounts.selectors import username_key
from config.problems import PROBLEM_CONTENT_TYPE, problem_body
from config.throttles import RateLimit

POLICY = "sign-in-failures"


def username_of(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The username an attempt is counted under: trimmed, NFKC-normalized and case-folded, so
    'Ada', 'ada ' and 'ａｄａ' share one count."""
    username = (credentials or {}).get("username")
    if username is None:
        return None
    return username_key(str(username).replace("\x00", "").strip())[:150]


def retry_after(username: str | None, *, now: datetime | None = None) -> int:
    """Seconds until the username's lock lifts, at most the whole cool-off."""
    cool_off: timedelta = settings.AXES_COOLOFF_TIME
    attempts = AccessAttempt.objects.filter(username=username)
    last: datetime | None = attempts.aggregate(last=Max("attempt_time"))["last"]
    if last is None:
        return math.ceil(cool_off.total_seconds())
    left: timedelta = last + cool_off - (now or timezone.now())
    return max(math.ceil(left.total_seconds()), 1)


def locked_out_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict[str, Any]
) -> HttpResponse:
    """What a refused sign-in gets: a 429 problem under /api/, a short page elsewhere (the
    admin); both say when to try again."""
    wait = retry_after(username_of(request, credentials))
    message = f"Too many failed sign-ins for this username. Try again in {wait} seconds."
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(
            problem_body(
                status_code=429,
                slug="too-many-failed-sign-ins",
                title="Too many failed sign-ins",
                detail=message,
            ),
            status=429,
            content_type=PROBLEM_CONTENT_TYPE,
        )
    else:
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    cool_off: timedelta = settings.AXES_COOLOFF_TIME
    limit = RateLimit(
        policy=POLICY,
        limit=settings.AXES_FAILURE_LIMIT,
        window=math.ceil(cool_off.total_seconds()),
        remaining=0,
        reset=wait,
    )
    response["Retry-After"] = str(wait)
    response["RateLimit-Policy"] = limit.policy_item()
    response["RateLimit"] = limit.limit_item()
    return response
