"""The review session: the queue one card at a time, counts and progress, feedback then next,
undo, suspend, bury and forget, and a summary at the end. Keys as in Anki (site.js presses
the button that shows each key)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from config.reversing import url_for
from quizzes.models import Question
from reviews import cards as card_services
from reviews.days import day_start
from reviews.models import Answer, Card
from reviews.queue import LEARN_AHEAD, Queue, review_queue
from reviews.web import answering
from reviews.web.answering import Place, Slot

SESSION_KEY = "review_session"
SESSION_IDLE = timedelta(hours=2)
"""After this long without coming back, a visit to /review/ starts a new session."""


@dataclass(frozen=True)
class Progress:
    new: int
    learning: int
    review: int
    done: int
    right: int
    milliseconds: int

    @property
    def left(self) -> int:
        return self.new + self.learning + self.review

    @property
    def total(self) -> int:
        return self.done + self.left


def _place(question: Question) -> Place:
    question_id = question.pk
    return Place(
        mode=Answer.Mode.REVIEW,
        answer_url=url_for("reviews:review-answer", question_id),
        reveal_url=url_for("reviews:review-reveal", question_id),
        target="review-card",
        keys=True,
        autofocus=True,
    )


def _session_start(request: HttpRequest, now: datetime, *, fresh: bool = False) -> datetime:
    """When this review session began (kept in the learner's session). A session that ended
    with its summary, or was left alone for a while, gives way to a new one."""
    kept: dict[str, Any] = request.session.get(SESSION_KEY) or {}
    started = parse_datetime(kept.get("started", "")) if kept else None
    seen = parse_datetime(kept.get("seen", "")) if kept else None
    if (
        fresh
        and (started is None or kept.get("finished") or seen is None or now - seen > SESSION_IDLE)
    ) or started is None:
        started = now
        kept = {"started": now.isoformat()}
    kept["seen"] = now.isoformat()
    request.session[SESSION_KEY] = kept
    return started


def _done_since(user: Any, started: datetime) -> dict[str, Any]:
    return Answer.objects.filter(
        user=user, mode=Answer.Mode.REVIEW, received_at__gte=started
    ).aggregate(
        done=Count("pk"),
        right=Count("pk", filter=Q(status=Answer.Status.CORRECT)),
        milliseconds=Sum("duration_ms"),
    )


def _progress(user: Any, found: Queue, *, now: datetime, started: datetime) -> Progress:
    """Cards left (new, learning, review) and what was done since the session began; the
    learning cards among those due are counted in one more query."""
    learning = Card.objects.filter(
        user=user,
        suspended=False,
        state__in=[Card.State.LEARNING, Card.State.RELEARNING],
        due__lte=now + LEARN_AHEAD,
    ).count()
    learning = min(learning, found.due_count)
    done = _done_since(user, started)
    return Progress(
        new=found.new_count,
        learning=learning,
        review=found.due_count - learning,
        done=done["done"],
        right=done["right"],
        milliseconds=done["milliseconds"] or 0,
    )


def _render(
    request: HttpRequest, slot: Slot, progress: Progress, *, status: int = 200
) -> HttpResponse:
    slot.next_url = url_for("reviews:review")
    slot.next_hx = slot.next_url
    template = "reviews/review.html#card" if request.htmx else "reviews/review.html"
    context = {"slot": slot, "progress": progress, "can_undo": progress.done > 0}
    return render(request, template, context, status=status)


def _finished(request: HttpRequest) -> HttpResponse:
    done = reverse("reviews:review-done")
    return HttpResponseClientRedirect(done) if request.htmx else redirect(done)


@login_required
@require_GET
def review(request: HttpRequest) -> HttpResponse:
    """The card to answer now; or, after an answer (`?answer=`) or a look at the answer
    (`?reveal=`), what it showed."""
    now = timezone.now()
    user = request.user
    answered_id, reveal_id = request.GET.get("answer"), request.GET.get("reveal")
    started = _session_start(request, now, fresh=not (answered_id or reveal_id))
    found = review_queue(user=user, now=now, limit=1)  # type: ignore[arg-type]
    if answered_id is not None:
        slot = answering.answered(request, answer_id=answered_id, place=_place)
    elif reveal_id is not None:
        slot = answering.revealed(request, reveal_id=reveal_id, place=_place)
    else:
        question = _first(found)
        if question is None:
            return _finished(request)
        slot = answering.ask(question, user_id=user.pk, place=_place(question))
    slot.another = False  # a review serves a new variant each time the card comes back
    return _render(request, slot, _progress(user, found, now=now, started=started))


def _first(found: Queue) -> Question | None:
    if found.cards:
        return found.cards[0].question
    return found.new_questions[0] if found.new_questions else None


def _after(request: HttpRequest, slot: Slot) -> HttpResponse:
    now = timezone.now()
    started = _session_start(request, now)
    found = review_queue(user=request.user, now=now, limit=1)  # type: ignore[arg-type]
    slot.another = False
    return _render(request, slot, _progress(request.user, found, now=now, started=started))


@login_required
@require_POST
def review_answer(request: HttpRequest, question_id: int) -> HttpResponse:
    question = answering.answerable(request, question_id=question_id, of="any")
    place = _place(question)
    outcome = answering.submit(request, question=question, place=place)
    if outcome.result is None:
        assert outcome.slot is not None
        return _after(request, outcome.slot)
    if not request.htmx:
        return answering.see_other(
            f"{reverse('reviews:review')}?answer={outcome.result['answer_id']}"
        )
    slot = answering.answer_shown(outcome, question=question, place=place)
    return _after(request, slot)


@login_required
@require_POST
def review_reveal(request: HttpRequest, question_id: int) -> HttpResponse:
    question = answering.answerable(request, question_id=question_id, of="any")
    place = _place(question)
    shown = answering.reveal(request, question=question, place=place)
    if isinstance(shown, Slot):
        return _after(request, shown)
    if not request.htmx:
        return answering.see_other(f"{reverse('reviews:review')}?reveal={shown.pk}")
    slot = answering.reveal_shown(request, shown, question=question, place=place)
    return _after(request, slot)


@login_required
@require_POST
def review_undo(request: HttpRequest) -> HttpResponse:
    """Takes back the last review, as the API's undo does; its card comes back."""
    try:
        card_services.review_undo(user=request.user)  # type: ignore[arg-type]
    except Answer.DoesNotExist:
        messages.info(request, "There is no answer to take back.")
    else:
        messages.success(request, "Your last answer was taken back. Here is its card again.")
    return _back(request)


def _back(request: HttpRequest) -> HttpResponse:
    if request.htmx:
        now = timezone.now()
        found = review_queue(user=request.user, now=now, limit=1)  # type: ignore[arg-type]
        question = _first(found)
        if question is None:
            return _finished(request)
        slot = answering.ask(question, user_id=request.user.pk, place=_place(question))
        slot.another = False
        started = _session_start(request, now)
        return _render(request, slot, _progress(request.user, found, now=now, started=started))
    return answering.see_other(reverse("reviews:review"))


def _card(request: HttpRequest, question_id: int) -> Card:
    card = Card.objects.filter(user=request.user, question_id=question_id).first()
    if card is None:
        raise Http404("No such card")
    return card


@login_required
@require_POST
def card_suspend(request: HttpRequest, question_id: int) -> HttpResponse:
    card_services.card_action(
        card=_card(request, question_id), action="suspend", now=timezone.now()
    )
    messages.success(
        request, "Suspended: this card stays out of your reviews until you bring it back."
    )
    return _back(request)


@login_required
@require_POST
def card_bury(request: HttpRequest, question_id: int) -> HttpResponse:
    card_services.card_bury(card=_card(request, question_id), user=request.user, now=timezone.now())  # type: ignore[arg-type]
    messages.success(request, "Buried until tomorrow.")
    return _back(request)


@login_required
@require_http_methods(["GET", "POST"])
def card_forget(request: HttpRequest, question_id: int) -> HttpResponse:
    """Asks first (a page of its own), then starts the card over as new."""
    card = _card(request, question_id)
    if request.method == "GET":
        question = answering.answerable(request, question_id=question_id, of="any")
        return render(request, "reviews/forget.html", {"card": card, "question": question})
    card_services.card_action(card=card, action="forget", now=timezone.now())
    messages.success(request, "Forgotten: the card starts over as new.")
    return answering.see_other(reverse("reviews:review"))


@login_required
@require_GET
def review_done(request: HttpRequest) -> HttpResponse:
    """The end of a session: how many, how many right, the time it took, what tomorrow
    holds."""
    now = timezone.now()
    user = request.user
    started = _session_start(request, now)
    kept = request.session[SESSION_KEY]
    kept["finished"] = now.isoformat()
    request.session[SESSION_KEY] = kept
    done = _done_since(user, started)
    tomorrow = day_start(user=user, now=now) + timedelta(days=1)  # type: ignore[arg-type]
    due_tomorrow = (
        Card.objects.filter(
            user=user, suspended=False, due__gte=tomorrow, due__lt=tomorrow + timedelta(days=1)
        )
        .exclude(state=Card.State.NEW)
        .count()
    )
    found = review_queue(user=user, now=now, limit=1)  # type: ignore[arg-type]
    seconds = round((done["milliseconds"] or 0) / 1000)
    return render(
        request,
        "reviews/review_done.html",
        {
            "done": done["done"],
            "right": done["right"],
            "minutes": seconds // 60,
            "seconds": seconds % 60,
            "due_tomorrow": due_tomorrow,
            "left": found.due_count + found.new_count,
        },
    )
