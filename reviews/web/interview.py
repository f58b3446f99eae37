"""Practising the interview bank in the browser: one question answered in the learner's own
words (typed, or said out loud), its model answer revealed and the key points covered ticked,
so that it joins the review schedule; and mock interviews, a few questions against a clock
with a summary at the end. Answering goes through the answering component, so grading,
scheduling and a double-click counting once are the API's (`reviews.interview`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from config.reversing import url_for
from config.throttles import throttle_page
from engine.coding import get_problem
from quizzes import interview as bank
from quizzes.coding import MAX_SOURCE, examples_shown
from quizzes.errors import AnswerRefused
from quizzes.models import InterviewCategory, Level, Question
from reviews import code, mocks
from reviews.models import Answer, CodeSubmission, MockInterview, MockQuestion
from reviews.web import answering
from reviews.web.answering import Place, Slot


def _signed_in(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Practising needs an account: a visitor signs in and comes back."""

    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


# --- one question ------------------------------------------------------------------------------


def _bank_question(request: HttpRequest, key: str) -> Question:
    """The live bank question of this key, as answering keeps it; 404 for none."""
    found = bank.question(key)
    if found is None:
        raise Http404("No such question")
    return answering.answerable(request, question_id=found.pk, of="bank")


def _practice_place(question: Question) -> Place:
    return Place(
        mode=Answer.Mode.REVIEW,
        answer_url=url_for("interview-practice:answer", question.key),
        reveal_url=url_for("interview-practice:reveal", question.key),
        target="practice-card",
        autofocus=True,
    )


def _next_in_category(question: Question) -> Question | None:
    """The category's next question after this one, in the bank's order (the first after
    the last)."""
    following = list(
        Question.objects.interview_bank()
        .filter(category_id=question.category_id)
        .order_by("position", "pk")
        .values_list("key", "position", "pk")
    )
    if len(following) < 2:
        return None
    place = next(i for i, (key, _, _) in enumerate(following) if key == question.key)
    key = following[(place + 1) % len(following)][0]
    return Question.objects.filter(key=key).first()


def _practice_render(request: HttpRequest, slot: Slot) -> HttpResponse:
    question = slot.question
    page = url_for("interview-practice:page", question.key)
    if slot.state == "answered" or (slot.state == "revealed" and not slot.free_text):
        following = _next_in_category(question)
        if following is not None:
            slot.next_url = url_for("interview-practice:page", following.key)
            slot.next_label = f"Next question in {question.category.title}"
        if question.is_generated:
            slot.another_url = slot.another_hx = page
    template = (
        "reviews/interview/practice.html#card"
        if request.htmx  # type: ignore[attr-defined]
        else "reviews/interview/practice.html"
    )
    return render(request, template, {"slot": slot, "question": question})


@_signed_in
@require_GET
def practice(request: HttpRequest, key: str) -> HttpResponse:
    """The question to answer; or, after an answer (`?answer=`) or a look at the model answer
    (`?reveal=`), what it showed. A coding question opens its editor."""
    question = _bank_question(request, key)
    if question.kind == Question.Kind.CODE:
        return coding(request, question)
    answered_id, reveal_id = request.GET.get("answer"), request.GET.get("reveal")
    if answered_id is not None:
        slot = answering.answered(
            request, answer_id=answered_id, place=_practice_place, question=question
        )
    elif reveal_id is not None:
        slot = answering.revealed(request, reveal_id=reveal_id, place=_practice_place)
        if slot.question.pk != question.pk:
            raise Http404("No such reveal")
    else:
        slot = answering.ask(question, user_id=request.user.pk, place=_practice_place(question))
    return _practice_render(request, slot)


@_signed_in
@require_POST
def practice_answer(request: HttpRequest, key: str) -> HttpResponse:
    question = _bank_question(request, key)
    place = _practice_place(question)
    outcome = answering.submit(request, question=question, place=place)
    if outcome.result is None:
        assert outcome.slot is not None
        return _practice_render(request, outcome.slot)
    if not request.htmx:  # type: ignore[attr-defined]
        page = url_for("interview-practice:page", question.key)
        return answering.see_other(f"{page}?answer={outcome.result['answer_id']}")
    return _practice_render(
        request, answering.answer_shown(outcome, question=question, place=place)
    )


@_signed_in
@require_POST
def practice_reveal(request: HttpRequest, key: str) -> HttpResponse:
    question = _bank_question(request, key)
    place = _practice_place(question)
    shown = answering.reveal(request, question=question, place=place)
    if isinstance(shown, Slot):
        return _practice_render(request, shown)
    if not request.htmx:  # type: ignore[attr-defined]
        page = url_for("interview-practice:page", question.key)
        return answering.see_other(f"{page}?reveal={shown.pk}")
    return _practice_render(
        request, answering.reveal_shown(request, shown, question=question, place=place)
    )


# --- mock interviews ---------------------------------------------------------------------------


class MockForm(forms.Form):
    categories = forms.MultipleChoiceField(
        label="Categories",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Leave them all unticked for questions from every category.",
    )
    level = forms.ChoiceField(
        label="Level",
        choices=[("", "Any level"), *Level.choices],
        required=False,
        initial="",
        widget=forms.RadioSelect,
    )
    length = forms.TypedChoiceField(
        label="Length",
        choices=MockInterview.Length.choices,
        coerce=int,
        initial=MockInterview.Length.MEDIUM,
        widget=forms.RadioSelect,
        error_messages={
            "required": "Choose how many questions.",
            "invalid_choice": "Choose 3, 5 or 10 questions.",
        },
    )

    def __init__(self, *args: Any, categories: list[InterviewCategory], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.by_slug = {c.slug: c for c in categories}
        field = self.fields["categories"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [(c.slug, c.title) for c in categories]
        for name in self.fields:
            self.fields[name].template_name = "reviews/answering/field.html"

    def chosen(self) -> list[InterviewCategory]:
        return [self.by_slug[slug] for slug in self.cleaned_data.get("categories") or []]


def _live_categories() -> list[InterviewCategory]:
    return list(InterviewCategory.objects.live().order_by("position", "pk"))


@require_http_methods(["GET", "POST"])
def mock_index(request: HttpRequest) -> HttpResponse:
    """Choose the categories, level and length, and start; the learner's recent mocks. A
    visitor sees what a mock interview is and signs in to run one."""
    categories = _live_categories()
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        return render(request, "reviews/interview/mock_index.html", {"categories": categories})
    form = MockForm(request.POST or None, categories=categories)
    if request.method == "POST" and form.is_valid():
        throttle_page(request, "answers")
        try:
            mock = mocks.mock_start(
                user=request.user,  # type: ignore[arg-type]
                categories=form.chosen(),
                level=form.cleaned_data["level"],
                length=form.cleaned_data["length"],
                now=timezone.now(),
            )
        except mocks.NothingToAsk:
            form.add_error(
                "level", "No question matches these categories at this level: choose another."
            )
        else:
            return answering.see_other(url_for("interview-practice:mock", mock.pk))
    return render(
        request,
        "reviews/interview/mock_index.html",
        {
            "form": form,
            "categories": categories,
            "recent": mocks.mocks_recent(user=request.user),  # type: ignore[arg-type]
        },
        status=400 if form.errors else 200,
    )


def _mock(request: HttpRequest, mock_id: int) -> MockInterview:
    mock = mocks.mock_of(user=request.user, mock_id=mock_id)  # type: ignore[arg-type]
    if mock is None:
        raise Http404("No such mock interview")
    return mock


def _mock_place_for(mock: MockInterview) -> Callable[[Question], Place]:
    def place(question: Question) -> Place:
        # No "Show the answer" for a number: an interview does not show it either.
        return Place(
            mode=Answer.Mode.REVIEW,
            answer_url=url_for("interview-practice:mock-answer", mock.pk, question.pk),
            reveal_url=url_for("interview-practice:mock-reveal", mock.pk, question.pk)
            if question.kind == Question.Kind.FREE_TEXT
            else "",
            target="mock-card",
            autofocus=True,
        )

    return place


def _item(items: list[MockQuestion], question_id: int) -> MockQuestion:
    found = next((item for item in items if item.question_id == question_id), None)
    if found is None:
        raise Http404("Not a question of this mock interview")
    return found


def _mock_render(
    request: HttpRequest, mock: MockInterview, items: list[MockQuestion], slot: Slot
) -> HttpResponse:
    item = _item(items, slot.question.pk)
    page = url_for("interview-practice:mock", mock.pk)
    if slot.state == "answered":
        last = all(other.answer_id is not None or other.pk == item.pk for other in items)
        slot.next_url = url_for("interview-practice:mock-summary", mock.pk) if last else page
        slot.next_label = "See the summary" if last else "Next question"
    template = (
        "reviews/interview/mock.html#card"
        if request.htmx  # type: ignore[attr-defined]
        else "reviews/interview/mock.html"
    )
    context = {
        "mock": mock,
        "slot": slot,
        "item": item,
        "total": len(items),
        "minutes": mocks.minutes_for(slot.question),
    }
    return render(request, template, context)


@_signed_in
@require_GET
def mock_page(request: HttpRequest, mock_id: int) -> HttpResponse:
    """The mock's next question, with its clock; after an answer (`?answer=`) or a look at
    the model answer (`?reveal=`), what it showed; at the end, the summary."""
    mock = _mock(request, mock_id)
    items = mocks.mock_questions(mock)
    place = _mock_place_for(mock)
    answered_id, reveal_id = request.GET.get("answer"), request.GET.get("reveal")
    if answered_id is not None:
        slot = answering.answered(request, answer_id=answered_id, place=place)
    elif reveal_id is not None:
        slot = answering.revealed(request, reveal_id=reveal_id, place=place)
    else:
        current = mocks.mock_current(items)
        if current is None:
            summary = url_for("interview-practice:mock-summary", mock.pk)
            if request.htmx:  # type: ignore[attr-defined]
                return HttpResponseClientRedirect(summary)
            return redirect(summary)
        mocks.mock_question_shown(current, now=timezone.now())
        question = answering.answerable(request, question_id=current.question_id, of="bank")
        slot = answering.ask(question, user_id=request.user.pk, place=place(question))
        slot.another = False
    return _mock_render(request, mock, items, slot)


@_signed_in
@require_POST
def mock_answer(request: HttpRequest, mock_id: int, question_id: int) -> HttpResponse:
    mock = _mock(request, mock_id)
    items = mocks.mock_questions(mock)
    item = _item(items, question_id)
    question = answering.answerable(request, question_id=question_id, of="bank")
    place = _mock_place_for(mock)(question)
    outcome = answering.submit(
        request,
        question=question,
        place=place,
        after=lambda result: mocks.mock_answered(
            item=item, answer_id=int(result["answer_id"]), now=timezone.now()
        ),
    )
    if outcome.result is None:
        assert outcome.slot is not None
        return _mock_render(request, mock, items, outcome.slot)
    if not request.htmx:  # type: ignore[attr-defined]
        page = url_for("interview-practice:mock", mock.pk)
        return answering.see_other(f"{page}?answer={outcome.result['answer_id']}")
    return _mock_render(
        request, mock, items, answering.answer_shown(outcome, question=question, place=place)
    )


@_signed_in
@require_POST
def mock_reveal(request: HttpRequest, mock_id: int, question_id: int) -> HttpResponse:
    mock = _mock(request, mock_id)
    items = mocks.mock_questions(mock)
    _item(items, question_id)
    question = answering.answerable(request, question_id=question_id, of="bank")
    if question.kind != Question.Kind.FREE_TEXT:
        raise Http404("A number's answer is not shown in a mock interview")
    place = _mock_place_for(mock)(question)
    shown = answering.reveal(request, question=question, place=place)
    if isinstance(shown, Slot):
        return _mock_render(request, mock, items, shown)
    if not request.htmx:  # type: ignore[attr-defined]
        page = url_for("interview-practice:mock", mock.pk)
        return answering.see_other(f"{page}?reveal={shown.pk}")
    return _mock_render(
        request, mock, items, answering.reveal_shown(request, shown, question=question, place=place)
    )


@_signed_in
@require_GET
def mock_summary(request: HttpRequest, mock_id: int) -> HttpResponse:
    mock = _mock(request, mock_id)
    summary = mocks.mock_summary(user=request.user, mock=mock)  # type: ignore[arg-type]
    return render(
        request,
        "reviews/interview/mock_summary.html",
        {"summary": summary, "mock": mock, "again": reverse("interview-practice:mock-index")},
    )


# --- coding questions --------------------------------------------------------------------------


class CodeForm(forms.Form):
    source = forms.CharField(
        label="Your code",
        max_length=MAX_SOURCE,
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 18,
                "spellcheck": "false",
                "autocapitalize": "off",
                "autocomplete": "off",
                "data-code-editor": "",
                "class": "code-editor",
            }
        ),
        error_messages={"required": "Write the function before running it."},
        help_text="Tab indents and Shift+Tab takes an indent back; press Escape, then Tab, to "
        "leave the editor.",
    )
    run = forms.ChoiceField(
        choices=CodeSubmission.Run.choices,
        widget=forms.HiddenInput,
        error_messages={
            "invalid_choice": "Run the examples or submit.",
            "required": "Run the examples or submit.",
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["source"].template_name = "reviews/answering/field.html"


def _coding_context(request: HttpRequest, question: Question) -> dict[str, Any]:
    last = (
        CodeSubmission.objects.filter(user=request.user, question=question)
        .order_by("-created_at", "-pk")
        .first()
    )
    problem = get_problem(question.entry.code_problem)
    return {
        "question": question,
        "problem": problem,
        "examples": examples_shown(problem),
        "unavailable": code.unavailable(),
        "last": last,
        "page": url_for("interview-practice:page", question.key),
    }


def coding(request: HttpRequest, question: Question) -> HttpResponse:
    """A coding question's page: its statement and examples, the editor, and the results of
    the submission named by `?submission=` (the learner's own)."""
    context = _coding_context(request, question)
    wanted = request.GET.get("submission", "")
    submission = None
    if wanted:
        if not wanted.isdigit() or len(wanted) > 18:
            raise Http404("No such submission")
        submission = code.submission_of(user=request.user, submission_id=int(wanted))  # type: ignore[arg-type]
        if submission is None or submission.question_id != question.pk:
            raise Http404("No such submission")
    last = context["last"]
    source = (
        submission.source if submission else last.source if last else question.entry.code_starter
    )
    shape = code.submission_shape(submission) if submission else None
    context |= {
        "form": CodeForm(initial={"source": source, "run": CodeSubmission.Run.SUBMIT}),
        "submission": submission,
        "shape": shape,
        "next_review": answering.next_review_words(shape["review"]) if shape else "",
    }
    return render(request, "reviews/interview/code.html", context)


@_signed_in
@require_POST
def coding_submit(request: HttpRequest, key: str) -> HttpResponse:
    """Stores the code and sends it to run; the page (or, with htmx, its results) follows it."""
    question = _bank_question(request, key)
    if question.kind != Question.Kind.CODE:
        raise Http404("Not a coding question")
    form = CodeForm(request.POST)
    if form.is_valid():
        throttle_page(request, "code")
        try:
            submission = code.code_submit(
                user=request.user,  # type: ignore[arg-type]
                question=question,
                source=form.cleaned_data["source"],
                run=form.cleaned_data["run"],
                now=timezone.now(),
            )
        except AnswerRefused as refused:
            form.add_error("source" if refused.field == "source" else None, refused.message)
        else:
            page = url_for("interview-practice:page", question.key)
            if request.htmx:  # type: ignore[attr-defined]
                return _results(request, question, submission.pk)
            return answering.see_other(f"{page}?submission={submission.pk}#results")
    context = _coding_context(request, question) | {"form": form, "submission": None}
    return render(request, "reviews/interview/code.html", context, status=400)


def _results(request: HttpRequest, question: Question, submission_id: int) -> HttpResponse:
    submission = code.submission_of(user=request.user, submission_id=submission_id)  # type: ignore[arg-type]
    if submission is None or submission.question_id != question.pk:
        raise Http404("No such submission")
    shape = code.submission_shape(submission)
    return render(
        request,
        "reviews/interview/code.html#results",
        {
            "question": question,
            "submission": submission,
            "shape": shape,
            "next_review": answering.next_review_words(shape["review"]),
            "page": url_for("interview-practice:page", question.key),
        },
    )


@_signed_in
@require_GET
def coding_results(request: HttpRequest, key: str, submission_id: int) -> HttpResponse:
    """A submission's results as they stand: what htmx asks for until it is done."""
    question = _bank_question(request, key)
    return _results(request, question, submission_id)
