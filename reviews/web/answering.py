"""Answering a question in the browser: one component for lesson checks, reviews and practice.

A question sits in a slot that is in one of three states: asked (the form, with nothing that
gives the answer away), revealed (the learner asked to see the answer: recorded as a reveal,
and for free text the step before rating), answered (the feedback). A page says where its
slot posts and in which mode it counts (a `Place`); answering and revealing go through the
API's own services (`answer_submit` inside `idempotent`, `reveal_create`), so grading,
scheduling and a double-click counting once are the API's.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponseRedirect, QueryDict
from django.urls import NoReverseMatch
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.html import escape
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from config.reversing import url_for
from config.throttles import throttle_page
from course import markdown, revisions
from quizzes import selectors as bank
from quizzes.api import shapes
from quizzes.errors import AnswerRefused
from quizzes.grading import answer_key
from quizzes.models import Choice, Question
from quizzes.variants import served_variant, variant_for, variant_token
from reviews import idempotency, interview, reveals, services
from reviews.feedback import past_answer_result
from reviews.models import Answer, Reveal
from reviews.web.forms import AnswerForm, RevealForm, inline_html, stamp

# Content HTML (prompts, explanations, choices) is sanitised when the course is loaded.
_safe = mark_safe


@dataclass(frozen=True)
class Place:
    """Where a slot lives: the mode its answers count in, the URLs its forms post to, the id
    of the element an htmx response replaces, and whether the page drives it by keys."""

    mode: str
    answer_url: str
    reveal_url: str
    target: str
    keys: bool = False
    autofocus: bool = False


@dataclass(frozen=True)
class ChoiceShown:
    text_html: SafeString
    correct: bool
    explanation_html: SafeString
    picked: bool = False


@dataclass(frozen=True)
class KeyPoint:
    text: str
    covered: bool


@dataclass(frozen=True)
class KeyPointsShown:
    """How an interview answer's ticked key points rated it."""

    points: list[KeyPoint]
    suggested: str
    rating: str

    @property
    def covered(self) -> int:
        return sum(point.covered for point in self.points)


@dataclass(frozen=True)
class Feedback:
    """An answer's feedback as the page shows it: the mistake named first, then the worked
    steps and the explanation."""

    answer_id: int
    status: str
    mode: str
    headline: SafeString
    explanation_html: SafeString
    correct_answer: str
    solution_steps: list[str]
    model_answer_html: SafeString
    choices: list[ChoiceShown]
    notice: str
    response: str
    next_review: str
    key_points: KeyPointsShown | None = None

    @property
    def verdict(self) -> str:
        return {
            "correct": "Right",
            "incorrect": "Not quite",
            "partial": "Partly right",
            "self_graded": "Rated",
        }.get(self.status, self.status)


@dataclass(frozen=True)
class Shown:
    """What "Show the answer" showed (rebuilt from the reveal): the answer and how to get
    it, or the model answer a free-text answer is rated against."""

    reveal_id: int
    correct_answer: str
    solution_steps: list[str]
    explanation_html: SafeString
    model_answer_html: SafeString
    choices: list[ChoiceShown]
    response: str = ""
    key_points: list[str] = field(default_factory=list)


@dataclass
class Slot:
    question: Question
    place: Place
    state: str  # "ask", "revealed", "answered", "signin"
    prompt_html: SafeString
    form: AnswerForm | None = None
    feedback: Feedback | None = None
    shown: Shown | None = None
    choices: list[ChoiceShown] = field(default_factory=list)
    report_url: str = ""
    another: bool = False
    # What comes after the feedback: the next question, another variant of this one (each a
    # page, and the fragment htmx fetches instead).
    next_url: str = ""
    next_hx: str = ""
    next_label: str = ""
    another_url: str = ""
    another_hx: str = ""
    problem: str = ""
    # A question just served (`ask`): its stamp, its variant token and the order of its
    # choices, which are all that sets its unanswered form apart from another serving's.
    served: str = ""
    variant_token: str = ""
    order: tuple[int, ...] = ()

    @property
    def free_text(self) -> bool:
        return self.question.kind == Question.Kind.FREE_TEXT

    @property
    def by_key_points(self) -> bool:
        """An interview question of the bank, rated by the key points the answer covered."""
        return self.free_text and self.question.in_bank

    @property
    def heading(self) -> str:
        """Where the question is from: its lesson, or its category of the interview bank."""
        if self.question.lesson is not None:
            return self.question.lesson.title
        return f"{self.question.category.title}: interview question"


def see_other(url: str) -> HttpResponseRedirect:
    """The redirect after a POST: the browser GETs the page that shows what happened."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def answerable(request: HttpRequest, *, question_id: int, of: str = "course") -> Question:
    """The live question with its choices, lesson, course and section, as kept for this
    content revision (read again, in two queries, once it changes); 404 when there is none
    where the page looks (`of`: "course" for a course's questions, "bank" for the interview
    bank's, "any" for either), 403 when it follows a Pro section the learner cannot open."""
    try:
        question = bank.question_to_answer(
            question_id=question_id, revision=revisions.of_request(request)
        )
    except Question.DoesNotExist:
        raise Http404("No such question") from None
    if of != "any" and question.in_bank != (of == "bank"):
        raise Http404("No such question here")
    if not bank.question_is_open_to(request.user, question):
        raise PermissionDenied("This question is part of Pro.")
    return question


def course_slug_of(question: Question) -> str:
    """The question's course, or "" for the interview bank's (in no course)."""
    return question.lesson.course.slug if question.lesson is not None else ""


def report_url(question: Question, *, course_slug: str) -> str:
    """ "Spotted a mistake?" for this question, prefilled with where it is; empty until the
    course's report page exists. A bank question's is its own page's."""
    if question.lesson is None:
        try:
            return url_for("interview:report", question.key)
        except NoReverseMatch:
            return ""
    try:
        base = url_for("course:report", course_slug, question.lesson.slug)
    except NoReverseMatch:
        return ""
    return f"{base}?{urlencode({'section': question.section.slug, 'question': question.pk})}"


def prompt_of(question: Question, seed: int | None) -> SafeString:
    if question.is_generated and seed is not None:
        return _safe(markdown.render(variant_for(question, seed).prompt))
    return _safe(question.prompt_html)


# --- asking ------------------------------------------------------------------------------------


def ask(
    question: Question,
    *,
    user_id: int,
    place: Place,
    seed: int | None = None,
    course_slug: str = "",
) -> Slot:
    """The question served afresh, as the API serves it: a new variant the server picks
    (or `seed`'s, which counts as practice), choices in a newly drawn order."""
    served = shapes.question_detail(question, user_id=user_id, seed=seed)
    variant = served.get("variant") or {}
    by_id = {c.pk: c for c in question.choices.all()}
    ordered = [by_id[c["id"]] for c in served.get("choices", [])]
    served_stamp, token = stamp(question.pk), variant.get("token", "")
    # Built only if the page renders the form itself rather than from its kept shape.
    form = SimpleLazyObject(
        lambda: AnswerForm(
            initial={"served": served_stamp, "variant": token},
            question=question,
            choices=ordered,
            keys=place.keys,
            autofocus=place.autofocus,
        )
    )
    return Slot(
        question=question,
        place=place,
        state="ask",
        prompt_html=_safe(variant.get("prompt_html") or question.prompt_html),
        form=cast(AnswerForm, form),
        report_url=report_url(question, course_slug=course_slug or course_slug_of(question)),
        another=question.is_generated,
        served=served_stamp,
        variant_token=token,
        order=tuple(choice.pk for choice in ordered),
    )


def sign_in(question: Question, *, place: Place) -> Slot:
    """The question as a visitor sees it: the prompt (a fresh variant) and its choices, with
    nothing to answer until they sign in."""
    served = shapes.question_detail(question, user_id=0)
    variant = served.get("variant") or {}
    by_id = {c.pk: c for c in question.choices.all()}
    return Slot(
        question=question,
        place=place,
        state="signin",
        prompt_html=_safe(variant.get("prompt_html") or question.prompt_html),
        choices=[
            ChoiceShown(inline_html(by_id[c["id"]].text_html), False, _safe(""))
            for c in served.get("choices", [])
        ],
    )


def _asked_again(
    question: Question, *, user_id: int, place: Place, data: QueryDict, course_slug: str
) -> Slot:
    """The form as the learner sent it, with its errors: the same variant and choice order
    (from its token), what they typed kept."""
    choices = list(question.choices.all())
    form = AnswerForm(data, question=question, choices=choices)
    form.is_valid()
    token = form.cleaned_data.get("variant") or ""
    seed: int | None = None
    order: tuple[int, ...] | None = None
    if token:
        try:
            served = served_variant(token=token, user_id=user_id, question_id=question.pk)
            seed, order = served.seed, served.order
        except AnswerRefused:
            token = ""
    if form.stamp is None or (question.is_generated and not token):
        # Nothing of this form can be trusted again: serve the question afresh.
        fresh = ask(question, user_id=user_id, place=place, course_slug=course_slug)
        fresh.problem = next(iter(form.errors.values()), ["Answer it again."])[0]
        return fresh
    by_id = {c.pk: c for c in choices}
    ordered = [by_id[pk] for pk in order if pk in by_id] if order else choices
    shown = AnswerForm(data, question=question, choices=ordered, keys=place.keys)
    shown.is_valid()
    return Slot(
        question=question,
        place=place,
        state="ask",
        prompt_html=prompt_of(question, seed),
        form=shown,
        report_url=report_url(question, course_slug=course_slug),
        another=question.is_generated,
    )


# --- answering ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """A posted answer: its result (the API's response body), or the slot to show again."""

    result: dict[str, Any] | None = None
    slot: Slot | None = None
    response: str = ""
    picked: Sequence[int] = ()
    rating: str = ""


_FIELDS = {
    "response": "response",
    "choice_ids": "choice",
    "covered_key_points": "covered",
    "rating": "adjust",
}


def submit(
    request: HttpRequest,
    *,
    question: Question,
    place: Place,
    after: Callable[[dict[str, Any]], None] | None = None,
) -> Outcome:
    """Grades and records the posted answer once, in the place's mode (the API's path); an
    interview question by the key points ticked (`reviews.interview`, as the API's practice).
    `after` is given the answer's result in the same transaction (a mock interview notes
    which of its questions it answers)."""
    throttle_page(request, "answers")
    user = request.user
    choices = list(question.choices.all())
    form = AnswerForm(request.POST, question=question, choices=choices)
    course_slug = course_slug_of(question)
    if not form.is_valid():
        return Outcome(
            slot=_asked_again(
                question,
                user_id=user.pk,
                place=place,
                data=request.POST,
                course_slug=course_slug,
            )
        )
    submitted = form.submitted(mode=place.mode, now_ms=int(time.time() * 1000))

    def action() -> idempotency.Replayable:
        done = services.answer_submit(
            user=user,  # type: ignore[arg-type]
            question=question,
            submitted=submitted,
            now=timezone.now(),
        )
        if after is not None:
            after(done.body)
        return done

    try:
        if "covered" in form.fields:
            ticks = interview.ticked(question, covered=form.covered(), step=form.step())
            submitted = dataclasses.replace(
                submitted, self_rating=ticks.rating.label, covered_key_points=ticks.covered
            )
        done = idempotency.idempotent(
            user=user,  # type: ignore[arg-type]
            key=form.key,
            fingerprint=idempotency.request_fingerprint(
                method="POST", path=request.path, body=form.fingerprint_body(mode=place.mode)
            ),
            action=action,
        )
    except AnswerRefused as refused:
        data = request.POST.copy()
        slot = _asked_again(
            question, user_id=user.pk, place=place, data=data, course_slug=course_slug
        )
        if slot.form is not None:
            name = _FIELDS.get(refused.field or "")
            slot.form.add_error(name if name in slot.form.fields else None, refused.message)
        return Outcome(slot=slot)
    return Outcome(
        result=done.body,
        response=submitted.response or "",
        picked=submitted.choice_ids or (),
        rating=submitted.self_rating or "",
    )


def feedback_of(
    result: dict[str, Any],
    *,
    question: Question,
    response: str = "",
    picked: Sequence[int] = (),
    rating: str = "",
) -> Feedback:
    """The page's feedback from the API's answer body (new, replayed or rebuilt)."""
    html = str(result.get("feedback_html") or "")
    cut = html.find("</p>")
    lead, explanation = (html[3:cut], html[cut + 4 :]) if html.startswith("<p>") else ("", html)
    notice = (result.get("notice") or {}).get("message", "")
    status = str(result["status"])
    mistake = result.get("misconception")
    if status == "self_graded":
        headline = escape(f"You rated your answer {rating.capitalize() or 'Again'}.")
    elif notice:
        # The notice stands in for the verdict's sentence in the API's feedback_html.
        word = {"correct": "Right", "partial": "Partly right"}.get(status, "Not quite")
        headline = escape(f"{word}: {mistake['message']}" if mistake else f"{word}.")
    else:
        headline = _safe(lead)
    return Feedback(
        answer_id=int(result["answer_id"]),
        status=status,
        mode=str(result["mode"]),
        headline=headline,
        explanation_html=_safe(explanation),
        correct_answer="" if question.is_choice else str(result.get("correct_answer") or ""),
        solution_steps=list(result.get("solution_steps") or []),
        model_answer_html=_safe(result.get("model_answer_html") or ""),
        choices=_choices_shown(question, result.get("choices") or [], picked),
        notice=notice,
        response=response,
        next_review=_next_review(result.get("review")),
        key_points=_key_points_shown(question, result.get("key_points")),
    )


def _key_points_shown(question: Question, ticked: dict[str, Any] | None) -> KeyPointsShown | None:
    if not ticked or not question.in_bank:
        return None
    covered = set(ticked["covered"])
    return KeyPointsShown(
        points=[KeyPoint(text, i in covered) for i, text in enumerate(question.entry.key_points)],
        suggested=str(ticked["suggested_rating"]),
        rating=str(ticked["rating"] or ""),
    )


def _choices_shown(
    question: Question, verdicts: list[dict[str, Any]], picked: Sequence[int] = ()
) -> list[ChoiceShown]:
    by_id = {c.pk: c for c in question.choices.all()}
    return [
        ChoiceShown(
            text_html=inline_html(by_id[v["id"]].text_html),
            correct=bool(v["correct"]),
            explanation_html=_safe(v.get("explanation_html") or ""),
            picked=v["id"] in picked,
        )
        for v in verdicts
        if v["id"] in by_id
    ]


def next_review_words(review: dict[str, Any] | None) -> str:
    """When a review brings its question back, in words: "in 5 minutes", "tomorrow"."""
    return _next_review(review)


def _next_review(review: dict[str, Any] | None) -> str:
    if not review:
        return ""
    days = float(review["interval_days"])
    if days < 1 / 24:
        minutes = max(1, round(days * 1440))
        return f"in {minutes} minute{'s' if minutes != 1 else ''}"
    if days < 1:
        hours = round(days * 24)
        return f"in {hours} hour{'s' if hours != 1 else ''}"
    whole = round(days)
    return "tomorrow" if whole == 1 else f"in {whole} days"


def answered(
    request: HttpRequest,
    *,
    answer_id: str,
    place: Callable[[Question], Place],
    question: Question | None = None,
) -> Slot:
    """The learner's own past answer with its feedback, as the API's GET of it gives it;
    anyone else's (or none) is a 404."""
    if not answer_id.isdigit() or len(answer_id) > 18:
        raise Http404("No such answer")
    answer = (
        Answer.objects.filter(user=request.user, pk=int(answer_id))
        .select_related(
            "question__lesson__course",
            "question__section",
            "question__category",
            "question__entry",
            "card",
        )
        .prefetch_related(
            Prefetch("question__choices", queryset=Choice.objects.order_by("position"))
        )
        .first()
    )
    if answer is None or (question is not None and answer.question_id != question.pk):
        raise Http404("No such answer")
    return answered_slot(
        past_answer_result(answer),
        question=answer.question,
        place=place(answer.question),
        response=answer.response,
        picked=answer.choice_ids,
        seed=answer.variant_seed,
        rating=answer.self_rating,
    )


def answer_shown(outcome: Outcome, *, question: Question, place: Place) -> Slot:
    """The slot of an answer just recorded, with its feedback."""
    assert outcome.result is not None
    return answered_slot(
        outcome.result,
        question=question,
        place=place,
        response=outcome.response,
        picked=outcome.picked,
        rating=outcome.rating,
    )


def answered_slot(
    result: dict[str, Any],
    *,
    question: Question,
    place: Place,
    response: str = "",
    picked: Sequence[int] = (),
    seed: int | None = None,
    rating: str = "",
) -> Slot:
    if seed is None and result.get("variant_seed"):
        seed = int(result["variant_seed"])
    return Slot(
        question=question,
        place=place,
        state="answered",
        prompt_html=prompt_of(question, seed),
        feedback=feedback_of(
            result, question=question, response=response, picked=picked, rating=rating
        ),
        report_url=report_url(question, course_slug=course_slug_of(question)),
        another=question.is_generated,
    )


# --- revealing ---------------------------------------------------------------------------------


def reveal(request: HttpRequest, *, question: Question, place: Place) -> Reveal | Slot:
    """Records "Show the answer" with the API's reveal service (a reveal, not an answer).
    Returns the reveal, or the slot to show again when the form was not one served here."""
    throttle_page(request, "answers")
    form = RevealForm(request.POST)
    user = request.user
    course_slug = course_slug_of(question)
    if not form.is_valid():
        return ask(question, user_id=user.pk, place=place, course_slug=course_slug)
    try:
        revealed = reveals.reveal_create(
            user=user,  # type: ignore[arg-type]
            question=question,
            variant=form.cleaned_data["variant"] or None,
            now=timezone.now(),
        )
    except AnswerRefused:
        return ask(question, user_id=user.pk, place=place, course_slug=course_slug)
    if question.kind == Question.Kind.FREE_TEXT:
        # Kept for the rating step, which shows what the learner wrote before looking.
        said = form.cleaned_data["aloud"]
        request.session[_reveal_key(revealed.reveal.pk)] = (
            "" if said else form.cleaned_data["response"]
        )
    return revealed.reveal


def revealed(request: HttpRequest, *, reveal_id: str, place: Callable[[Question], Place]) -> Slot:
    """What the learner's own reveal showed (a 404 for anyone else's), with what comes next:
    rating a free-text answer, or answering the same variant now that it is known."""
    if not reveal_id.isdigit() or len(reveal_id) > 18:
        raise Http404("No such reveal")
    found = (
        Reveal.objects.filter(user=request.user, pk=int(reveal_id))
        .select_related(
            "question__lesson__course",
            "question__section",
            "question__category",
            "question__entry",
        )
        .prefetch_related(
            Prefetch("question__choices", queryset=Choice.objects.order_by("position"))
        )
        .first()
    )
    if found is None:
        raise Http404("No such reveal")
    return reveal_shown(request, found, question=found.question, place=place(found.question))


def reveal_shown(request: HttpRequest, found: Reveal, *, question: Question, place: Place) -> Slot:
    """The slot of a reveal just made or looked up, with what the learner wrote before it."""
    return revealed_slot(
        found,
        question=question,
        place=place,
        user_id=request.user.pk,
        response=str(request.session.get(_reveal_key(found.pk), "")),
    )


def _reveal_key(reveal_id: int) -> str:
    return f"reveal:{reveal_id}"


def revealed_slot(
    found: Reveal, *, question: Question, place: Place, user_id: int, response: str = ""
) -> Slot:
    choices = list(question.choices.all())
    key = answer_key(question, seed=found.variant_seed, choices=choices)
    shown = Shown(
        reveal_id=found.pk,
        correct_answer="" if question.is_choice else key.correct_answer,
        solution_steps=key.solution_steps,
        explanation_html=_safe(question.explanation_html),
        model_answer_html=_safe(question.model_answer_html),
        choices=[
            ChoiceShown(inline_html(c.text_html), c.is_correct, _safe(c.explanation_html))
            for c in choices
        ],
        response=response,
        key_points=list(question.entry.key_points) if question.in_bank else [],
    )
    initial: dict[str, Any] = {"served": stamp(question.pk)}
    if question.kind == Question.Kind.FREE_TEXT:
        initial |= {"reveal": found.pk, "response": response}
    elif question.is_generated and found.variant_seed is not None:
        # The same variant, now that its answer is known (answers to it count as practice).
        initial["variant"] = variant_token(
            user_id=user_id, question_id=question.pk, seed=found.variant_seed
        )
    form = AnswerForm(initial=initial, question=question, choices=choices, keys=place.keys)
    return Slot(
        question=question,
        place=place,
        state="revealed",
        prompt_html=prompt_of(question, found.variant_seed),
        form=form,
        shown=shown,
        report_url=report_url(question, course_slug=course_slug_of(question)),
        another=question.is_generated,
    )
