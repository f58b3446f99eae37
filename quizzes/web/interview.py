"""The interview bank's pages, open to everyone: the categories with their counts, a category's
questions by level, search across the bank, and one question with its model answer, key points
and notes. What they read comes from `quizzes.interview`, as the API's does."""

from __future__ import annotations

import hashlib

from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET, require_http_methods

from config.throttles import throttle_page
from course import markdown
from course.services import report_create
from course.web import embeds, richtext
from course.web.forms import ReportForm
from quizzes import interview as bank
from quizzes.coding import coding_shape
from quizzes.models import Level, Question
from quizzes.variants import variant_for

PAGE_SIZE = 40
NO_TERMS = richtext.glossary([])


def _level(request: HttpRequest) -> str:
    """The level asked for, or "" for all (anything else is read as all)."""
    level = request.GET.get("level", "")
    return level if level in Level.values else ""


def _page(request: HttpRequest, questions: object) -> object:
    return Paginator(questions, PAGE_SIZE).get_page(request.GET.get("page"))


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    search = request.GET.get("q", "").strip()
    level = _level(request)
    categories = bank.categories()
    context: dict[str, object] = {
        "categories": categories,
        "total": sum(c.total for c in categories),
        "search": search,
        "level": level,
        "levels": Level.choices,
    }
    if search or level:
        context["page"] = _page(request, bank.bank_questions(search=search, level=level))
    return render(request, "quizzes/interview/index.html", context)


@require_GET
def category(request: HttpRequest, category: str) -> HttpResponse:
    found = bank.category(category)
    if found is None:
        raise Http404("category")
    level = _level(request)
    counts = next(c for c in bank.categories() if c.category.pk == found.pk)
    return render(
        request,
        "quizzes/interview/category.html",
        {
            "category": found,
            "counts": counts,
            "level": level,
            "level_counts": [(v, label, counts.counts[v]) for v, label in Level.choices],
            "page": _page(request, bank.bank_questions(category=found, level=level)),
        },
    )


def _prose(html: str) -> SafeString:
    return richtext.prepare(html, NO_TERMS).html


def _summary(markdown_text: str, limit: int = 155) -> str:
    """The model answer's opening as plain text, cut at a word: what a search engine shows."""
    text = bank.plain_text(markdown_text)
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


@require_GET
def question(request: HttpRequest, key: str) -> HttpResponse:
    found = bank.question(key)
    if found is None:
        raise Http404("question")
    entry = found.entry
    example = None
    if found.generator:
        # A fixed example of the family's numbers, the same on every visit (a page to link).
        seed = int.from_bytes(hashlib.blake2b(found.key.encode(), digest_size=7).digest(), "big")
        variant = variant_for(found, seed)
        example = {
            "prompt": markdown.render(variant.prompt),
            "answer": variant.correct_answer,
            "steps": variant.solution_steps,
        }
    return render(
        request,
        "quizzes/interview/question.html",
        {
            "question": found,
            "entry": entry,
            "model_answer": _prose(found.model_answer_html),
            "notes": _prose(entry.notes_html),
            "diagram": embeds.diagram(entry.diagram, "d-") if entry.diagram else "",
            "related": bank.related(found),
            "example": example,
            "coding": coding_shape(found) if found.kind == Question.Kind.CODE else None,
            "description": _summary(found.model_answer_markdown),
        },
    )


@require_http_methods(["GET", "POST"])
def report(request: HttpRequest, key: str) -> HttpResponse:
    """ "Spotted a mistake?" about a bank question: a note for the people who write the bank,
    as a lesson's report is (the API's `POST /api/v1/reports/` with the question's id)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    found = bank.question(key)
    if found is None:
        raise Http404("question")
    back = reverse("interview:question", args=[found.key])
    context: dict[str, object] = {"question": found, "back": back}
    if request.method == "GET" and request.GET.get("sent") == "1":
        return render(request, "quizzes/interview/report.html", {**context, "sent": True})
    form = ReportForm(request.POST or None, sections={}, question_ids=[found.pk])
    if request.method == "POST":
        throttle_page(request, "reports")  # every attempt counts, as with the API
        if form.is_valid():
            report_create(user=request.user, question_id=found.pk, message=form.report_text())  # type: ignore[arg-type]
            if request.htmx:  # type: ignore[attr-defined]
                return render(
                    request, "quizzes/interview/report.html#report_body", {**context, "sent": True}
                )
            return HttpResponseRedirect(f"{request.path}?sent=1", status=303)
    template = (
        "quizzes/interview/report.html#report_body"
        if request.htmx  # type: ignore[attr-defined]
        else "quizzes/interview/report.html"
    )
    return render(request, template, {**context, "form": form}, status=400 if form.errors else 200)
