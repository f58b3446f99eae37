"""Practice: a lesson's or a topic's questions, answered without touching the schedule
(the API's practice mode), a generated one as many times as the learner likes."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from config.reversing import url_for
from quizzes import selectors as bank
from quizzes.models import Question
from reviews.models import Answer
from reviews.web import answering
from reviews.web.answering import Place, Slot

SCOPES = ("lessons", "topics")


@login_required
@require_GET
def practice_index(request: HttpRequest) -> HttpResponse:
    """The lessons and topics to practise, with how many questions each has."""
    questions = bank.question_list(user=request.user)
    lessons = list(
        questions.values("lesson__slug", "lesson__title", "lesson__number")
        .annotate(count=Count("pk"))
        .order_by("lesson__number")
    )
    counts = dict(questions.values_list("topic").annotate(count=Count("pk")).order_by("topic"))
    topics = [
        {"slug": value, "title": label, "count": counts[value]}
        for value, label in Question.Topic.choices
        if counts.get(value)
    ]
    return render(request, "reviews/practice_index.html", {"lessons": lessons, "topics": topics})


def _scope(user: Any, scope: str, slug: str) -> tuple[str, list[int]]:
    """The scope's title and its question ids in course order (one query); 404 for none."""
    if scope not in SCOPES:
        raise Http404("No such scope")
    questions = bank.question_list(user=user)
    if scope == "lessons":
        rows = list(questions.filter(lesson__slug=slug).values_list("pk", "lesson__title"))
        title = rows[0][1] if rows else ""
    else:
        labels = dict(Question.Topic.choices)
        if slug not in labels:
            raise Http404("No such topic")
        rows = list(questions.filter(topic=slug).values_list("pk", "topic"))
        title = str(labels[slug])
    if not rows:
        raise Http404("Nothing to practise here")
    return title, [pk for pk, _ in rows]


def _page(scope: str, slug: str) -> str:
    return reverse("reviews:practice-scope", args=[scope, slug])


def _place_for(scope: str, slug: str) -> Any:
    def place(question: Question) -> Place:
        return Place(
            mode=Answer.Mode.PRACTICE,
            answer_url=url_for("reviews:practice-answer", scope, slug, question.pk),
            reveal_url=url_for("reviews:practice-reveal", scope, slug, question.pk),
            target="practice-card",
            keys=True,
            autofocus=True,
        )

    return place


def _render(
    request: HttpRequest, slot: Slot, *, scope: str, slug: str, title: str, ids: list[int]
) -> HttpResponse:
    page = _page(scope, slug)
    current = slot.question.pk
    index = ids.index(current) if current in ids else 0
    following = ids[(index + 1) % len(ids)]
    if len(ids) > 1:
        slot.next_url = slot.next_hx = f"{page}?question={following}"
        slot.next_label = "Next question"
    if slot.question.is_generated:
        slot.another_url = slot.another_hx = f"{page}?question={current}"
    template = "reviews/practice.html#card" if request.htmx else "reviews/practice.html"
    context = {
        "slot": slot,
        "title": title,
        "scope": scope,
        "number": index + 1,
        "total": len(ids),
        "skip_url": f"{page}?question={following}" if len(ids) > 1 else "",
    }
    return render(request, template, context)


@login_required
@require_GET
def practice_scope(request: HttpRequest, scope: str, slug: str) -> HttpResponse:
    title, ids = _scope(request.user, scope, slug)
    place = _place_for(scope, slug)
    answered_id, reveal_id = request.GET.get("answer"), request.GET.get("reveal")
    if answered_id is not None:
        slot = answering.answered(request, answer_id=answered_id, place=place)
    elif reveal_id is not None:
        slot = answering.revealed(request, reveal_id=reveal_id, place=place)
    else:
        wanted = request.GET.get("question", "")
        current = int(wanted) if wanted.isdigit() and len(wanted) < 19 else ids[0]
        if current not in ids:
            raise Http404("Not a question of this practice")
        question = answering.answerable(request, question_id=current)
        slot = answering.ask(question, user_id=request.user.pk, place=place(question))
    return _render(request, slot, scope=scope, slug=slug, title=title, ids=ids)


@login_required
@require_POST
def practice_answer(request: HttpRequest, scope: str, slug: str, question_id: int) -> HttpResponse:
    title, ids = _scope(request.user, scope, slug)
    question = answering.answerable(request, question_id=question_id)
    place = _place_for(scope, slug)(question)
    outcome = answering.submit(request, question=question, place=place)
    if outcome.result is None:
        assert outcome.slot is not None
        slot = outcome.slot
    elif not request.htmx:
        return answering.see_other(f"{_page(scope, slug)}?answer={outcome.result['answer_id']}")
    else:
        slot = answering.answer_shown(outcome, question=question, place=place)
    return _render(request, slot, scope=scope, slug=slug, title=title, ids=ids)


@login_required
@require_POST
def practice_reveal(request: HttpRequest, scope: str, slug: str, question_id: int) -> HttpResponse:
    title, ids = _scope(request.user, scope, slug)
    question = answering.answerable(request, question_id=question_id)
    place = _place_for(scope, slug)(question)
    shown = answering.reveal(request, question=question, place=place)
    if isinstance(shown, Slot):
        slot = shown
    elif not request.htmx:
        return answering.see_other(f"{_page(scope, slug)}?reveal={shown.pk}")
    else:
        slot = answering.reveal_shown(request, shown, question=question, place=place)
    return _render(request, slot, scope=scope, slug=slug, title=title, ids=ids)
