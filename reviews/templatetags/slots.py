"""`{% answer_slot slot level=2 title="..." %}`: one question in its slot (asked, revealed or
answered), the way every page shows it. An asked question comes from its kept shape
(`reviews.web.fragments`); any other state renders `reviews/answering/slot.html` as an include
would."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from reviews.web import fragments
from reviews.web.answering import Slot

register = template.Library()


@register.simple_tag(takes_context=True)
def answer_slot(context: Any, slot: Slot, *, level: int = 2, title: str = "") -> SafeString:
    title = str(title or "Question")
    html = fragments.render_slot(
        slot,
        level=level,
        title=title,
        request=context.get("request"),
        csrf_token=str(context.get("csrf_token") or ""),
    )
    if html is not None:
        return html
    slot_template = context.template.engine.get_template(fragments.TEMPLATE)
    with context.push(slot=slot, level=level, title=title):
        return mark_safe(slot_template.render(context))
