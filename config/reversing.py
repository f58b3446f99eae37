"""URLs reversed once: `reverse` walks the URL patterns on every call (some 15 µs each), and a
page that shows a question reverses three URLs for it, the same ones for every learner."""

from __future__ import annotations

import functools
from collections.abc import Hashable

from django.urls import get_script_prefix, get_urlconf, reverse


def url_for(name: str, *args: Hashable) -> str:
    """`reverse(name, args=args)`, kept for this script prefix and URL conf (the two things
    besides its arguments that a reversed URL depends on here: the project's URLs carry no
    language prefix). Raises NoReverseMatch as `reverse` does."""
    return _reversed(get_script_prefix(), get_urlconf(), name, args)


@functools.lru_cache(maxsize=8192)
def _reversed(prefix: str, urlconf: str | None, name: str, args: tuple[Hashable, ...]) -> str:
    return reverse(name, args=args, urlconf=urlconf)
