"""An asked question's HTML, rendered once for each shape it takes and filled in per serving.

A question waiting for its answer has the same markup wherever a page shows it in the same way
(its form's fields, their labels and ids, where it posts, the heading above it), but for a few
values: the CSRF token, the signed `served` stamp, the variant token, the prompt (a generated
question's is its variant's), and which choice stands at each place in the list (the order is
drawn for each serving). The slot template (`reviews/answering/slot.html`) renders once per
shape with a marker in each of those places, and each serving puts its own values in, escaped.
Rendering a form through Django's widget templates costs more than the rest of a lesson page,
and a lesson shows a question after each section.

Only what cannot hold a learner's own words or errors is kept: an asked slot whose form is
unbound (a form sent back with its problems renders afresh), and a question shown to a
visitor. The key is everything else the template reads in those states; the content (prompt
and choices) is put in at each serving, so an edited question is never shown stale and nothing
needs clearing. The markers are random for each process, so no content can contain them.
"""

from __future__ import annotations

import secrets
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, cast

from django.template import Context
from django.template.loader import get_template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from config.lru import LRU
from quizzes.models import Choice
from reviews.web.answering import ChoiceShown, Slot
from reviews.web.forms import AnswerForm, inline_html

TEMPLATE = "reviews/answering/slot.html"
SIZE = 2048
"""Shapes kept in each process (a few kilobytes each)."""

_MARK = "m" + secrets.token_hex(12)
CSRF, SERVED, VARIANT, PROMPT = (
    f"{_MARK}{name}" for name in ("csrf", "served", "variant", "prompt")
)


shapes: LRU[str] = LRU(SIZE)


def _value(index: int) -> str:
    return f"{_MARK}-value-{index}-"


def _label(index: int) -> str:
    return f"{_MARK}-label-{index}-"


@dataclass(frozen=True)
class _Marked:
    """A choice standing in for the one a serving puts at its place."""

    pk: str
    text_html: str


def _shape_key(slot: Slot, *, level: int, title: str, path: str) -> Hashable | None:
    """What the template reads for this slot, besides what is filled in, or None when the
    slot is not kept."""
    question = slot.question
    common = (question.pk, question.kind, slot.place, level, title, slot.report_url)
    if slot.state == "signin":
        return ("signin", *common, len(slot.choices), path)
    if slot.state != "ask" or not slot.served or slot.problem:
        return None  # not a question just served: a form sent back, or one with a problem
    return ("ask", *common, len(slot.order))


def _shape(slot: Slot, *, level: int, title: str, request: Any) -> str:
    """The slot's template rendered with markers where a serving's own values go: the
    prompt, and at each place in the list of choices the choice's id and text."""
    marked = Slot(
        question=slot.question,
        place=slot.place,
        state=slot.state,
        prompt_html=mark_safe(PROMPT),
        choices=[
            ChoiceShown(mark_safe(_label(i)), False, mark_safe(""))
            for i in range(len(slot.choices))
        ],
        report_url=slot.report_url,
        another=slot.another,
    )
    if slot.state == "ask":
        marked.form = AnswerForm(
            initial={"served": SERVED, "variant": VARIANT},
            question=slot.question,
            choices=cast(
                list[Choice], [_Marked(_value(i), _label(i)) for i in range(len(slot.order))]
            ),
            keys=slot.place.keys,
            autofocus=slot.place.autofocus,
        )
    context = {"slot": marked, "level": level, "title": title, "csrf_token": CSRF}
    template = get_template(TEMPLATE).template  # type: ignore[attr-defined]
    return str(template.render(Context({**context, "request": request})))


def _attribute(value: str) -> str:
    return f' value="{escape(value)}"' if value else ""


def render_slot(
    slot: Slot, *, level: int, title: str, request: Any, csrf_token: str
) -> SafeString | None:
    """The slot's HTML from its kept shape (rendering the shape the first time it is met),
    or None for a slot that is not kept: the caller renders it as usual."""
    path = getattr(request, "path", "")
    key = _shape_key(slot, level=level, title=title, path=path)
    if key is None:
        return None
    html = shapes.get(key)
    if html is None:
        html = _shape(slot, level=level, title=title, request=request)
        shapes.put(key, html)
    filled = (
        html.replace(CSRF, escape(csrf_token))
        .replace(f' value="{SERVED}"', _attribute(slot.served))
        .replace(f' value="{VARIANT}"', _attribute(slot.variant_token))
    )
    if slot.state == "ask" and slot.order:
        by_id = {choice.pk: choice for choice in slot.question.choices.all()}
        for index, pk in enumerate(slot.order):
            filled = filled.replace(_value(index), str(pk)).replace(
                _label(index), inline_html(by_id[pk].text_html)
            )
    for index, shown in enumerate(slot.choices if slot.state == "signin" else ()):
        filled = filled.replace(_label(index), str(shown.text_html))
    # Content last (cleaned when the course was loaded, and no content holds a marker).
    return mark_safe(filled.replace(PROMPT, str(slot.prompt_html)))
