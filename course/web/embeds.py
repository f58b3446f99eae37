"""Labs and diagrams that a lesson places in its Markdown, `::: lab toy-mlp token=jordan step=2`
or `::: diagram pre-norm-block` on a line of their own (`course.markdown` turns each into an
empty placeholder). `problems` is what the content loader checks; `expand` fills a section's
placeholders when the lesson's body is built.

A lab in a lesson is the lab's own form and result at the state the line gives, its ids
prefixed (`e1-`, `e2-`, ... in the order the lesson places them) so that several fit on one
page. Moving its controls asks the lab's page for the result alone (course/labs/embed.html).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from django.http import Http404, QueryDict
from django.template.loader import render_to_string
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from course.web import diagrams, labs

_PLACEHOLDER = re.compile(
    r'<div data-embed="([^"]*)" data-name="([^"]*)" data-state="([^"]*)"></div>\n?'
)
_PAIR = re.compile(r"([a-z_]+)=(\S*)")
# Names a lab's state may give beyond its form's fields.
_EXTRA_NAMES = {"parameters": {"preset"}}


def state_query(name: str, state: str) -> QueryDict:
    """`token=jordan step=2` as the query the lab's page would be sent, what it leaves out
    taken from the lab's starting state; ValueError naming the first piece that is not
    name=value."""
    query = QueryDict(mutable=True)
    for piece in state.split():
        found = _PAIR.fullmatch(piece)
        if not found:
            raise ValueError(f"'{piece}' is not name=value")
        query.appendlist(found[1], found[2])
    if name == "parameters" and "preset" in query:
        return query
    for key, values in labs.STARTS[name].items():
        if key not in query:
            query.setlist(key, values)
    if name == "near-orthogonal":
        query.setdefault("seed", "1")  # a lesson's draw is the same each time it is shown
    return query


def problems(kind: str, name: str, state: str) -> list[str]:
    """Why a placed lab or diagram cannot be shown; nothing when it can."""
    if kind == "diagram":
        if name not in diagrams.DIAGRAMS:
            return [f"unknown diagram '{name}'; the diagrams are {', '.join(diagrams.DIAGRAMS)}"]
        return [f"a diagram takes no state, not '{state}'"] if state else []
    if kind != "lab":
        return [f"'::: {kind}' places nothing: write '::: lab <name>' or '::: diagram <name>'"]
    if name not in labs.SHOWS:
        return [f"unknown lab '{name}'; the labs are {', '.join(labs.SHOWS)}"]
    try:
        query = state_query(name, state)
        shown = labs.SHOWS[name](query.copy(), "e0-", "")
    except ValueError as error:
        return [f"lab '{name}': {error}"]
    except Http404:
        return [f"lab '{name}': no such preset '{query.get('preset')}'"]
    form = shown.context["form"]
    known = set(form.fields) | _EXTRA_NAMES.get(name, set())
    found = [f"lab '{name}': '{key}' is not one of its inputs" for key in query if key not in known]
    found += [f"lab '{name}': {key}: {' '.join(errors)}" for key, errors in form.errors.items()]
    return found


def expand(body: str, numbers: Iterator[int]) -> SafeString:
    """`body` (sanitized HTML) with each placeholder filled; `numbers` gives each lab its
    prefix, so that they count on across a lesson's sections."""

    def fill(found: re.Match[str]) -> str:
        kind, name, state = (html.unescape(group) for group in found.groups())
        if problems(kind, name, state):  # the loader refuses these; an old row shows nothing
            return ""
        prefix = f"e{next(numbers)}-"
        return diagram(name, prefix) if kind == "diagram" else lab(name, state, prefix)

    return mark_safe(_PLACEHOLDER.sub(fill, body))  # what fills it is built from escaped parts


def lab(name: str, state: str, prefix: str) -> SafeString:
    page = labs.BY_SLUG[name]
    query = state_query(name, state)
    shown = labs.SHOWS[name](query.copy(), prefix, page.url)
    context = shown.context | labs.page_context(page, prefix, page.url)
    context |= {"base": "course/labs/embed.html", "state": query.urlencode()}
    return mark_safe(render_to_string(shown.template, context))  # a template's output


def diagram(name: str, prefix: str) -> SafeString:
    drawn = diagrams.DIAGRAMS[name]
    words = format_html_join("", "<li>{}</li>", ((line,) for line in drawn.words))
    return format_html(
        '<figure class="diagram-figure" aria-labelledby="{}caption">'
        '<figcaption id="{}caption">{}</figcaption>'
        '<div class="diagram-figure__body"><div class="diagram-figure__picture">{}</div>'
        '<div class="diagram-figure__words"><p class="diagram-figure__heading">In words</p>'
        "<ol>{}</ol></div></div></figure>",
        prefix,
        prefix,
        drawn.title,
        drawn.draw(prefix),
        words,
    )
