"""A lesson's check questions, answered in place after each section.

The lesson page (course) asks `section_checks` for the HTML to place after each section. An
answer here is practice, as the API's answer is when a client sends `mode: practice`: reading
a lesson checks understanding, and the question's first review comes from the review queue
in its turn. Without JavaScript a check posts and comes back to the lesson at the question
(`?answer=` or `?reveal=`, then `#question-<id>`); with htmx only the question is replaced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template import Context
from django.template.loader import get_template
from django.urls import NoReverseMatch
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from config.reversing import url_for
from course import revisions
from quizzes.models import Choice, Question
from reviews.models import Answer
from reviews.web import answering
from reviews.web.answering import Place, Slot

if TYPE_CHECKING:
    from course.selectors import LessonPage


def _place(question: Question) -> Place:
    return Place(
        mode=Answer.Mode.PRACTICE,
        answer_url=url_for("reviews:check", question.pk),
        reveal_url=url_for("reviews:check-reveal", question.pk),
        target=f"question-{question.pk}",
    )


def lesson_url(question: Question) -> str:
    course, lesson = question.lesson.course.slug, question.lesson.slug
    try:
        return url_for("course:lesson", course, lesson)
    except NoReverseMatch:
        return f"/courses/{course}/{lesson}/"


# A lesson's check questions with their choices, lesson, course and section, by id: the same
# for every reader who may open the same questions, until the content changes.
_questions: revisions.Kept[dict[int, Question]] = revisions.Kept(size=256)


def _load(ids: tuple[int, ...]) -> dict[int, Question]:
    questions = (
        Question.objects.filter(pk__in=ids)
        .order_by()  # the page's order; the model's own joins the lesson and course to sort
        .select_related("lesson__course", "section")
        .prefetch_related(Prefetch("choices", queryset=Choice.objects.order_by("position")))
    )
    return {question.pk: question for question in questions}


def section_checks(request: HttpRequest, page: LessonPage) -> dict[int, SafeString]:
    """{section id: its check questions' HTML}, for every section of the lesson page: the
    questions and their choices as kept for this content revision (two queries when it has
    just changed), and the one answered or revealed (`?answer=`, `?reveal=`) in two more."""
    if not page.question_ids:
        return {}
    ids = tuple(page.question_ids)
    by_id = _questions.get(ids, revisions.of_request(request), lambda: _load(ids))
    shown: Slot | None = None
    user = request.user
    if user.is_authenticated:
        answered_id, reveal_id = request.GET.get("answer"), request.GET.get("reveal")
        if answered_id is not None:
            shown = answering.answered(request, answer_id=answered_id, place=_place)
        elif reveal_id is not None:
            shown = answering.revealed(request, reveal_id=reveal_id, place=_place)
    html: dict[int, SafeString] = {}
    template = get_template("reviews/checks.html").template  # type: ignore[attr-defined]
    token = get_token(request)
    for section_id, ids in page.section_question_ids.items():
        slots = []
        for question_id in ids:
            question = by_id.get(question_id)
            if question is None:
                continue
            if shown is not None and shown.question.pk == question_id:
                slot = shown
            elif user.is_authenticated:
                slot = answering.ask(question, user_id=user.pk, place=_place(question))
            else:
                slot = answering.sign_in(question, place=_place(question))
            _another(slot)
            slots.append(slot)
        if slots:
            # Straight from the template, without the site's context processors: the checks
            # need nothing of them but the request and the CSRF token.
            context = Context({"slots": slots, "request": request, "csrf_token": token})
            html[section_id] = mark_safe(template.render(context))
    return html


def _another(slot: Slot) -> None:
    if slot.question.is_generated and slot.state in ("answered", "revealed"):
        url = url_for("reviews:check", slot.question.pk)
        slot.another_url, slot.another_hx = url, url


def _fragment(request: HttpRequest, slot: Slot) -> HttpResponse:
    _another(slot)
    return render(request, "reviews/checks.html#slot", {"slot": slot})


@login_required
@require_http_methods(["GET", "POST"])
def check(request: HttpRequest, question_id: int) -> HttpResponse:
    """GET: the question afresh (another variant); POST: the answer, as practice."""
    question = answering.answerable(request, question_id=question_id)
    place = _place(question)
    back = lesson_url(question)
    if request.method == "GET":
        if not request.htmx:
            return redirect(f"{back}#question-{question.pk}")
        return _fragment(request, answering.ask(question, user_id=request.user.pk, place=place))
    outcome = answering.submit(request, question=question, place=place)
    if outcome.result is None:
        assert outcome.slot is not None
        if request.htmx:
            return _fragment(request, outcome.slot)
        return _check_page(request, outcome.slot, back)
    if not request.htmx:
        answer_id = outcome.result["answer_id"]
        return answering.see_other(f"{back}?answer={answer_id}#question-{question.pk}")
    slot = answering.answer_shown(outcome, question=question, place=place)
    return _fragment(request, slot)


@login_required
@require_POST
def check_reveal(request: HttpRequest, question_id: int) -> HttpResponse:
    question = answering.answerable(request, question_id=question_id)
    place = _place(question)
    back = lesson_url(question)
    shown = answering.reveal(request, question=question, place=place)
    if isinstance(shown, Slot):
        return _fragment(request, shown) if request.htmx else redirect(back)
    if not request.htmx:
        return answering.see_other(f"{back}?reveal={shown.pk}#question-{question.pk}")
    slot = answering.reveal_shown(request, shown, question=question, place=place)
    return _fragment(request, slot)


def _check_page(request: HttpRequest, slot: Slot, back: str) -> HttpResponse:
    """A check whose form came back with a problem, without JavaScript: the question alone,
    with the problem named and a way back to the lesson."""
    context: dict[str, Any] = {"slot": slot, "back": back}
    return render(request, "reviews/check_page.html", context)
