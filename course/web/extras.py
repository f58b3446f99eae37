"""What other apps show inside a lesson page, without the course app importing them.

The course sits below the question bank and the reviews (the import contracts), yet a lesson
shows its check questions after each section. An app above registers a provider here (in its
AppConfig.ready); the lesson view asks every provider once per page for the HTML to place after
each section, so a provider answers for all sections in a fixed number of queries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.utils.safestring import SafeString

if TYPE_CHECKING:
    from course.selectors import LessonPage

SectionExtra = Callable[[HttpRequest, "LessonPage"], dict[int, SafeString]]
"""(request, page) -> {section id: HTML to show after that section}."""

_providers: list[SectionExtra] = []


def register_section_extra(provider: SectionExtra) -> None:
    if provider not in _providers:
        _providers.append(provider)


def section_extras(request: HttpRequest, page: LessonPage) -> dict[int, list[SafeString]]:
    extras: dict[int, list[SafeString]] = {}
    for provider in _providers:
        for section_id, html in provider(request, page).items():
            extras.setdefault(section_id, []).append(html)
    return extras
