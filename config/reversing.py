"""URLs reversed once: `reverse` walks the URL patterns on every call (some 15 µs each), and a
page reverses a dozen or more, the same ones for every learner. `url_for` is the Python side;
the templates' `{% url %}` is this module's tag (a builtin of the site's template engine)."""

from __future__ import annotations

import functools
from collections.abc import Hashable
from typing import Any

from django import template
from django.template import defaulttags
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()


def url_for(name: str, *args: Hashable, current_app: str | None = None) -> str:
    """`reverse(name, args=args)`, kept for this script prefix and URL conf (what besides its
    arguments a reversed URL depends on: the project's URLs carry no language prefix). Raises
    NoReverseMatch as `reverse` does, and a failed lookup is not kept."""
    return _reversed(get_script_prefix(), get_urlconf(), name, args, (), current_app)


@functools.lru_cache(maxsize=8192)
def _reversed(
    prefix: str,
    urlconf: str | None,
    name: str,
    args: tuple[Hashable, ...],
    kwargs: tuple[tuple[str, Hashable], ...],
    current_app: str | None,
) -> str:
    return reverse(name, args=args, kwargs=dict(kwargs), urlconf=urlconf, current_app=current_app)


class KeptURLNode(defaulttags.URLNode):
    """Django's `{% url %}`, with the reversal kept as `url_for` keeps it."""

    def render(self, context: Any) -> str:
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = tuple(sorted((k, v.resolve(context)) for k, v in self.kwargs.items()))
        try:
            hash((args, kwargs))
        except TypeError:  # an argument that cannot be a key: reversed as Django does
            return str(super().render(context))
        request = getattr(context, "request", None)
        current_app = getattr(request, "current_app", None)
        if current_app is None:
            current_app = getattr(getattr(request, "resolver_match", None), "namespace", None)
        view_name = self.view_name.resolve(context)
        url = ""
        try:
            prefix, urlconf = get_script_prefix(), get_urlconf()
            url = _reversed(prefix, urlconf, view_name, args, kwargs, current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return str(conditional_escape(url)) if context.autoescape else url


@register.tag
def url(parser: Any, token: Any) -> KeptURLNode:
    node = defaulttags.url(parser, token)
    return KeptURLNode(node.view_name, node.args, node.kwargs, node.asvar)
