"""URLs reversed once give what `reverse` gives, in Python and in templates, and a name that
does not reverse fails as it does with Django's own tag."""

from __future__ import annotations

import pytest
from django.template import Template, engines
from django.urls import NoReverseMatch, reverse, set_script_prefix

from config.reversing import KeptURLNode, url_for


def render(source: str, **context) -> str:
    return engines["django"].from_string(source).render(context)


def test_url_for_is_reverse():
    assert url_for("reviews:check", 12) == reverse("reviews:check", args=[12])
    assert url_for("course:lesson", "c", "l") == reverse("course:lesson", args=["c", "l"])
    with pytest.raises(NoReverseMatch):
        url_for("no-such-view")


def test_the_url_tag_is_the_kept_one_and_reverses_as_django_does():
    assert isinstance(Template("{% url 'web:home' %}").nodelist[0], KeptURLNode)
    assert render("{% url 'course:lesson' 'c' slug %}", slug="l") == reverse(
        "course:lesson", args=["c", "l"]
    )
    assert render("{% url 'course:lesson' course='c' lesson=s %}", s="l") == reverse(
        "course:lesson", kwargs={"course": "c", "lesson": "l"}
    )
    assert render("{% url 'no-such-view' as found %}[{{ found }}]") == "[]"
    with pytest.raises(NoReverseMatch):
        render("{% url 'no-such-view' %}")
    # An argument that cannot be a key is reversed the way Django reverses it.
    assert render("{% url 'reviews:check' ids.0 %}", ids=[7]) == reverse("reviews:check", args=[7])


def test_a_url_is_kept_for_its_script_prefix():
    try:
        set_script_prefix("/mounted/")
        assert url_for("web:home") == "/mounted/"
        assert render("{% url 'web:home' %}") == "/mounted/"
    finally:
        set_script_prefix("/")
    assert url_for("web:home") == "/"
