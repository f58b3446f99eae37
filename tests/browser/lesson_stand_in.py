"""A stand-in lesson page for the check questions' browser tests: the lesson's section titles
with what the section extras place after each (the check questions), at the lesson's address.
The course's own lesson page (with the sections' text) takes its place once it exists."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import URLResolver, include, path

from config.urls import urlpatterns as site
from course.selectors import lesson_page
from course.web.extras import section_extras

PAGE = """{% extends "base.html" %}{% block title %}{{ page.lesson.title }}{% endblock %}
{% block content %}<article class="reading"><h1>{{ page.lesson.title }}</h1>
{% for section in page.sections %}<section id="{{ section.slug }}"><h2>{{ section.title }}</h2>
{% for extra in extras|get:section.pk %}{{ extra }}{% endfor %}
</section>{% endfor %}</article>{% endblock %}"""


def lesson(request: HttpRequest, course: str, lesson: str) -> HttpResponse:
    page = lesson_page(slug=lesson, user=request.user)
    extras = section_extras(request, page)
    sections = [(s, extras.get(s.pk, [])) for s in page.sections]
    template = engines["django"].from_string(
        PAGE.replace(
            "{% for extra in extras|get:section.pk %}", "{% for extra in extras %}"
        ).replace("{% for section in page.sections %}", "{% for section, extras in sections %}")
    )
    return HttpResponse(template.render({"page": page, "sections": sections}, request))


stand_in = (
    [path("courses/<slug:course>/<slug:lesson>/", lesson, name="lesson")],
    "course",
)

urlpatterns = [p for p in site if not (isinstance(p, URLResolver) and p.app_name == "course")] + [
    path("", include(stand_in))
]
