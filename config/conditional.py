"""Conditional GETs for the content an app syncs: ETag, Last-Modified and 304 Not Modified.

The ETag is a hash of the body the caller would get, so it changes whenever the content or
the caller's view of it (their plan, their progress) changes, and never otherwise. A view
says when its content last changed only where every caller gets the same body; a signed-in
caller's body also depends on things with no modification time (their plan), so they are
answered by ETag alone. Responses vary by who asks (Authorization, Cookie) and are always
revalidated (no-cache), never reused stale.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import http_date
from django.views.decorators.http import conditional_page
from rest_framework.request import Request
from rest_framework.response import Response


class ConditionalGet:
    """Answers conditional requests: send back the response's `ETag` as `If-None-Match` (or
    its `Last-Modified`, where the body is the same for every caller, as `If-Modified-Since`)
    and get a 304 with no body when nothing changed."""

    def last_modified(self, request: Request) -> datetime | None:
        """When the content in this response last changed, if it is the same for everyone."""
        return None

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        # Django's conditional GET runs once the body is rendered, so it can hash it.
        return conditional_page(super().as_view(**initkwargs))  # type: ignore[misc]

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        if request.method == "GET" and 200 <= response.status_code < 300:
            patch_vary_headers(response, ("Authorization", "Cookie"))
            if getattr(request.user, "is_authenticated", False):
                patch_cache_control(response, no_cache=True, private=True)
            else:
                patch_cache_control(response, no_cache=True)
            modified = self.last_modified(request)
            if modified is not None:
                response["Last-Modified"] = http_date(modified.timestamp())
        return response


def shared_when_anonymous(
    request: Request, changed_at: Callable[[], datetime | None]
) -> datetime | None:
    """When the content changed, for an anonymous caller, whose body is the same as every
    other anonymous caller's; nothing (and no query) for a signed-in one."""
    return None if getattr(request.user, "is_authenticated", False) else changed_at()
