"""Every API route in the URL conf, as a client would call it, for tests that must cover each
endpoint (new ones included) without a list to keep up to date."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver

_PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


@dataclass(frozen=True)
class Route:
    template: str  # "/api/v1/classrooms/<id:classroom_id>/items/"
    methods: tuple[str, ...]  # what the view answers besides OPTIONS, upper case

    def path(self, **values: Any) -> str:
        """The route with its parameters filled in; an int is 1 and a slug "x" unless given."""

        def fill(match: re.Match[str]) -> str:
            default = 1 if match["converter"] in ("int", "id") else "x"
            return str(values.get(match["name"], default))

        return _PARAMETER.sub(fill, self.template)


def api_routes() -> list[Route]:
    """The routes under /api/v1/ served by a view with methods, catch-all aside."""
    routes: list[Route] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                template = "/" + prefix + str(pattern.pattern)
                view = getattr(pattern.callback, "cls", None)
                if not template.startswith("/api/v1/") or view is None:
                    continue
                methods = tuple(
                    m.upper()
                    for m in view.http_method_names
                    if m not in {"options", "head"}
                    if hasattr(view, m)
                )
                routes.append(Route(template, methods))

    walk(get_resolver().url_patterns, "")
    return routes
