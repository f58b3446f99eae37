"""The learner's cards: the list with the API's filters, and suspend, unsuspend and forget,
for one card or for the ones selected, through the same service as the API's card actions.

Without JavaScript every action is a form that posts and redirects back to the list as it was
filtered; with htmx a single card's action answers with its row only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import django_filters
from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import Truncator
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from course.models import Lesson
from reviews import cards as card_services
from reviews import selectors
from reviews.api.cards import CardFilter
from reviews.days import day_start
from reviews.models import Card

PAGE_SIZE = 20  # as the API's card list
MAX_ID = 2**63 - 1
ACTIONS = {
    "suspend": "Suspended",
    "unsuspend": "Brought back into reviews",
    "forget": "Forgotten: it starts over as new",
}
DUE_CHOICES = [("today", "Due today"), ("week", "Due within 7 days")]
YES_NO = {
    "suspended": [("", "Any"), ("true", "Suspended"), ("false", "Not suspended")],
    "leech": [("", "Any"), ("true", "Leeches only"), ("false", "No leeches")],
}


class CardPageFilter(CardFilter):
    """The API's card filters, and when the cards come due: today (overdue included) or within
    a week, counted as the stats page counts due cards (in the queue, not suspended)."""

    due = django_filters.ChoiceFilter(choices=DUE_CHOICES, method="filter_due", label="Due")

    def filter_due(self, queryset: QuerySet[Card], name: str, value: str) -> QuerySet[Card]:
        user = self.request.user  # type: ignore[union-attr]
        days = 1 if value == "today" else 7
        bound = day_start(user=user, now=timezone.now()) + timedelta(days=days)
        return queryset.filter(suspended=False, due__lt=bound).exclude(state=Card.State.NEW)


@dataclass(frozen=True)
class Row:
    """A card as its row shows it."""

    card: Card
    prompt: str
    lesson: str
    due: str
    due_iso: str


@login_required
@require_GET
def card_list(request: HttpRequest) -> HttpResponse:
    user = request.user
    cards = selectors.cards_of(user=user).select_related("question__lesson", "question__category")  # type: ignore[arg-type]
    # An empty choice in the form ("Any") means the filter is left out, and the address says
    # only the filters chosen.
    data = QueryDict(mutable=True)
    for key, value in request.GET.items():
        if value != "" and key != "page":
            data[key] = value
    if "" in request.GET.values():
        query = _list_query(data, 1)
        return HttpResponseRedirect(f"{request.path}?{query}" if query else request.path)
    filters = CardPageFilter(data, queryset=cards, request=request)
    _shape_form(filters.form, user=user)  # type: ignore[arg-type]
    valid = filters.is_valid()
    page = Paginator(filters.qs if valid else cards.none(), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "filters": filters,
        "filtered": bool(data),
        "page": page,
        "rows": _rows(list(page), user=user),  # type: ignore[arg-type]
        "back_query": _list_query(data, page.number),
        "filter_query": _list_query(data, 1),
    }
    return render(request, "reviews/stats/cards.html", context)


@login_required
@require_POST
def card_action(request: HttpRequest, card_id: int, action: str) -> HttpResponse:
    """Suspend, unsuspend or forget one of the learner's cards (anyone else's is a 404)."""
    card = _own_cards(request, [card_id]).first()
    if card is None:
        raise Http404("No such card.")
    card = card_services.card_action(card=card, action=action, now=timezone.now())
    row = _rows([card], user=request.user)[0]  # type: ignore[arg-type]
    message = f"{ACTIONS[action]}: “{row.prompt}”"
    if request.htmx:  # type: ignore[attr-defined]
        context = {
            "row": row,
            "status": message,
            "focus": action,
            "back_query": _back_query(request),
        }
        return render(request, "reviews/stats/cards.html#card-action", context)
    messages.success(request, message)
    return HttpResponseRedirect(_back(request), status=303)


@login_required
@require_POST
def card_bulk(request: HttpRequest) -> HttpResponse:
    """The same action on every selected card, in one transaction. Forgetting asks first: the
    list's button leads to a page that names the cards and posts again with `confirm`."""
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        raise Http404("No such action.")
    ids = request.POST.getlist("card")
    back = _back(request)
    if not ids:
        messages.error(request, "Select at least one card first.")
        return HttpResponseRedirect(back, status=303)
    if not all(re.fullmatch(r"[0-9]{1,19}", i) and int(i) <= MAX_ID for i in ids):
        raise Http404("No such card.")
    wanted = {int(i) for i in ids}
    cards = list(
        _own_cards(request, wanted).select_related("question__lesson", "question__category")
    )
    if len(cards) != len(wanted):
        raise Http404("No such card.")
    if action == "forget" and request.POST.get("confirm") != "yes":
        context = {
            "rows": _rows(cards, user=request.user),  # type: ignore[arg-type]
            "back": back,
            "back_query": _back_query(request),
            "action": action,
        }
        return render(request, "reviews/stats/forget.html", context)
    now = timezone.now()
    with transaction.atomic():
        for card in cards:
            card_services.card_action(card=card, action=action, now=now)
    messages.success(
        request, f"{ACTIONS[action]}: {len(cards)} card{'s' if len(cards) > 1 else ''}."
    )
    return HttpResponseRedirect(back, status=303)


def _own_cards(request: HttpRequest, ids: Any) -> QuerySet[Card]:
    return selectors.cards_of(user=request.user).filter(pk__in=ids)  # type: ignore[arg-type]


def _shape_form(form: forms.Form, *, user: User) -> None:
    """The filter form as a page shows it: lists to pick from instead of typed values, each
    with an "any" choice that leaves the filter out."""
    fields = form.fields
    fields["state"].label = "State"
    fields["state"].widget = forms.Select(choices=[("", "Any state"), *Card.State.choices])
    lessons = (
        Lesson.objects.filter(questions__cards__in=selectors.cards_of(user=user))
        .distinct()
        .order_by("course_id", "number")
        .values_list("slug", "number", "title")
    )
    fields["lesson"].label = "Lesson"
    fields["lesson"].widget = forms.Select(
        choices=[("", "Any lesson"), *((slug, f"{n}. {title}") for slug, n, title in lessons)]
    )
    for name, choices in YES_NO.items():
        fields[name].label = name.capitalize()
        fields[name].widget = forms.Select(choices=choices)
    fields["due"].widget = forms.Select(choices=[("", "Any time"), *DUE_CHOICES])


def _rows(cards: list[Card], *, user: User) -> list[Row]:
    now = timezone.now()
    zone = ZoneInfo(user.timezone)
    return [
        Row(
            card=card,
            prompt=short_prompt(card.question.prompt_markdown),
            lesson=card.question.lesson.title
            if card.question.lesson
            else f"Interview questions: {card.question.category.title}",
            due=_due(card, now=now, zone=zone),
            due_iso=card.due.isoformat(),
        )
        for card in cards
    ]


def short_prompt(markdown: str, length: int = 110) -> str:
    """The question's prompt as one line of plain text, cut at a word."""
    text = re.sub(r"[`*_$]|\\\(|\\\)", "", markdown)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return Truncator(" ".join(text.split())).chars(length)


def _due(card: Card, *, now: datetime, zone: ZoneInfo) -> str:
    if card.state == Card.State.NEW:
        return "when next new cards are served"
    if card.due <= now:
        return "now"
    local, today = card.due.astimezone(zone), now.astimezone(zone).date()
    if local.date() == today:
        return f"today at {local:%H:%M}"
    if local.date() == today + timedelta(days=1):
        return f"tomorrow at {local:%H:%M}"
    return f"{local.day} {local:%b %Y}"


KEPT = ("state", "lesson", "suspended", "leech", "due", "page")


def _list_query(data: QueryDict, page: int) -> str:
    kept = {k: v for k, v in data.items() if k in KEPT}
    if page > 1:
        kept["page"] = str(page)
    return urlencode(kept)


def _back_query(request: HttpRequest) -> str:
    """The list's filters and page as the form carried them, and nothing else."""
    params = QueryDict(request.POST.get("back_query", "").replace("\x00", ""))
    return urlencode({k: v for k, v in params.items() if k in KEPT})


def _back(request: HttpRequest) -> str:
    """Where an action returns to: the list as the learner left it (only its query is taken
    from the form, so the redirect always stays on the card list)."""
    query = _back_query(request)
    url = reverse("reviews:cards")
    return f"{url}?{query}" if query else url
