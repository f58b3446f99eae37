"""The course's pages: a course and its lessons, a lesson to read, reporting a mistake, and what
Pro opens. Each calls the selectors and services the API calls; Pro gating is the API's own
(`selectors.can_read` per section), so a section closed to the reader never reaches the HTML."""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template import Context
from django.template.loader import get_template
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import billing, entitlements, licences
from config.throttles import throttle_page
from course import plans as plans_content
from course import revisions, selectors, services
from course.models import Course, GlossaryTerm, Lesson, Section
from course.web import embeds, richtext
from course.web.extras import section_extras
from course.web.forms import RedeemForm, ReportForm

# A lesson with this many sections or more opens with a table of contents.
CONTENTS_FROM = 4


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


# --- the course ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LessonRow:
    lesson: Lesson
    completed: bool
    prerequisites: list[Lesson]
    pro_sections: int
    """Sections the reader cannot open (0 for a Pro learner)."""


@require_GET
def course(request: HttpRequest, course: str) -> HttpResponse:
    try:
        page = selectors.course_page(slug=course, user=request.user)
    except Course.DoesNotExist:
        raise Http404(course) from None
    pro = selectors.user_is_pro(request.user)
    rows = [
        LessonRow(
            lesson=lesson,
            completed=lesson.pk in page.completed,
            prerequisites=list(lesson.prerequisites.all()),
            pro_sections=0 if pro else lesson.section_count - lesson.free_section_count,  # type: ignore[attr-defined]
        )
        for lesson in page.lessons
    ]
    done = sum(row.completed for row in rows)
    return render(
        request,
        "course/course.html",
        {
            "course": page.course,
            "rows": rows,
            "done": done,
            "total": len(rows),
            "is_pro": pro,
            "with_pro": sum(1 for row in rows if row.pro_sections),
        },
    )


# --- a lesson -----------------------------------------------------------------------------


@dataclass
class SectionBlock:
    section: Section
    html: SafeString
    extras: SafeString
    """Where the section's extras go: a marker in the kept body."""
    terms: list[str] = field(default_factory=list)


def _lesson_page(request: HttpRequest, course: str, lesson: str) -> selectors.LessonPage:
    try:
        page = selectors.lesson_page(
            slug=lesson, user=request.user, revision=revisions.of_request(request)
        )
    except Lesson.DoesNotExist:
        raise Http404(lesson) from None
    if page.lesson.course.slug != course:
        raise Http404(lesson)
    return page


@require_GET
def lesson(request: HttpRequest, course: str, lesson: str) -> HttpResponse:
    """The lesson's body is the same for every reader with the same plan and progress: it is
    rendered once for each content revision, with markers where each reader's own parts go
    (the check questions after each section, the CSRF token), and those are put in here."""
    page = _lesson_page(request, course, lesson)
    reader = Reader(
        readable=tuple(selectors.can_read(request.user, s.access) for s in page.sections),
        signed_in=bool(request.user.is_authenticated),
        can_complete=selectors.can_read(request.user, page.lesson.access),
        completed=page.completed,
    )
    revision = revisions.of_request(request)
    body = _bodies.get(
        (page.lesson.pk, reader), revision, lambda: _lesson_body(page, revision, reader)
    )
    filled = body.replace(_CSRF, escape(get_token(request)))
    extras = section_extras(request, page)
    for section in page.sections:
        filled = filled.replace(_extras_mark(section.pk), "".join(extras.get(section.pk, ())))
    return render(request, "course/lesson.html", {"lesson": page.lesson, "body": mark_safe(filled)})


@dataclass(frozen=True)
class Reader:
    """All a lesson's body shows of its reader: which sections they may read, whether they
    are signed in, may complete the lesson and have completed it."""

    readable: tuple[bool, ...]
    signed_in: bool
    can_complete: bool
    completed: bool


# The lesson bodies (by lesson and what they show of the reader) and each course's glossary
# with definitions, for linking terms in any lesson of it.
_bodies: revisions.Kept[str] = revisions.Kept(size=512)
_glossaries: revisions.Kept[list[GlossaryTerm]] = revisions.Kept(size=64)
_MARK = "m" + secrets.token_hex(12)
_CSRF = f"{_MARK}-csrf"


def _extras_mark(section_id: int) -> str:
    return f"{_MARK}-extras-{section_id}-"


def _lesson_body(page: selectors.LessonPage, revision: int, reader: Reader) -> str:
    template = get_template("course/lesson_body.html").template  # type: ignore[attr-defined]
    context = _lesson_context(page, revision, reader)
    return str(template.render(Context({**context, "csrf_token": _CSRF})))


def _lesson_context(page: selectors.LessonPage, revision: int, reader: Reader) -> dict[str, Any]:
    """What the body shows: the lesson, and of the reader only what `reader` says (the key the
    body is kept by)."""
    course_id = page.lesson.course_id
    terms = _glossaries.get(
        course_id,
        revision,
        lambda: selectors.course_glossary(course_id=course_id),
    )
    matcher = richtext.glossary((term.slug, [term.term, *term.aliases]) for term in terms)
    blocks: list[SectionBlock] = []
    numbers = itertools.count(1)  # each lab's and diagram's ids, counted across the lesson
    closed: list[Section] = []
    toc: list[dict[str, Any]] = []
    # Where the panel naming the closed sections goes: after the open sections before them.
    panel_after: int | None = None
    for section, readable in zip(page.sections, reader.readable, strict=True):
        toc.append({"section": section, "open": readable})
        if not readable:
            if not closed:
                panel_after = len(blocks)
            closed.append(section)
            continue
        prepared = richtext.prepare(section.body_html, matcher)
        blocks.append(
            SectionBlock(
                section=section,
                html=embeds.expand(prepared.html, numbers),
                extras=mark_safe(_extras_mark(section.pk)),
                terms=prepared.terms,
            )
        )
    shown = {slug for block in blocks for slug in block.terms}
    shown |= {term.slug for term in page.glossary}
    cards: list[GlossaryTerm] = [term for term in terms if term.slug in shown]
    lesson = page.lesson
    return {
        "page": page,
        "lesson": lesson,
        "course": lesson.course,
        "lesson_url": reverse("course:lesson", args=[lesson.course.slug, lesson.slug]),
        "blocks": blocks,
        "closed": closed,
        "panel_after": panel_after,
        "contents": len(page.sections) >= CONTENTS_FROM,
        "toc": toc,
        "cards": cards,
        "completed": reader.completed,
        "signed_in": reader.signed_in,
        "can_complete": reader.can_complete,
    }


@require_POST
def complete(request: HttpRequest, course: str, lesson: str) -> HttpResponse:
    url = reverse("course:lesson", args=[course, lesson])
    if not request.user.is_authenticated:
        return redirect_to_login(url)
    found = selectors.live_lesson(slug=lesson)
    if found is None or found.course.slug != course:
        raise Http404(lesson)
    try:
        services.lesson_complete(user=request.user, lesson=found, now=timezone.now())
    except services.ProRequired:
        raise PermissionDenied("This lesson needs Pro to complete.") from None
    if request.htmx:  # type: ignore[attr-defined]
        context = {"lesson": found, "course": found.course, "completed": True, "just_done": True}
        context |= {"signed_in": True, "can_complete": True}
        return render(request, "course/lesson_body.html#completion", context)
    return _see_other(url + "#completion")


# --- reporting a mistake ------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def report(request: HttpRequest, course: str, lesson: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    page = _lesson_page(request, course, lesson)
    sections = {
        section.slug: section.title
        for section in page.sections
        if selectors.can_read(request.user, section.access)
    }
    lesson_url = reverse("course:lesson", args=[course, lesson])
    source = request.POST if request.method == "POST" else request.GET
    about = _about(page, sections, source.get("section", ""), source.get("question", ""))
    context: dict[str, Any] = {
        "lesson": page.lesson,
        "course": page.lesson.course,
        "about": about,
        "back": lesson_url + (f"#{about['section']}" if about["section"] else ""),
    }
    if request.method == "GET" and request.GET.get("sent") == "1":
        return render(request, "course/report.html", {**context, "sent": True})
    if request.method == "POST":
        throttle_page(request, "reports")  # every attempt counts, as with the API
        form = ReportForm(request.POST, sections=sections, question_ids=page.question_ids)
        if form.is_valid():
            services.report_create(
                user=request.user,
                lesson=page.lesson,
                question_id=form.cleaned_data["question"],
                message=form.report_text(),
            )
            if request.htmx:  # type: ignore[attr-defined]
                return render(request, "course/report.html#report_body", {**context, "sent": True})
            query = {"sent": "1", **({"section": about["section"]} if about["section"] else {})}
            return _see_other(f"{request.path}?{urlencode(query)}")
    else:
        form = ReportForm(
            initial={"section": about["section"], "question": about["question"]},
            sections=sections,
            question_ids=page.question_ids,
        )
    template = "course/report.html#report_body" if request.htmx else "course/report.html"  # type: ignore[attr-defined]
    return render(request, template, {**context, "form": form})


def _about(
    page: selectors.LessonPage, sections: dict[str, str], section: str, question: str
) -> dict[str, Any]:
    """Where the report was opened from, as far as it is part of this lesson."""
    slug = section if section in sections else ""
    number = int(question) if question.isdigit() and len(question) < 19 else None
    return {
        "section": slug,
        "section_title": sections.get(slug, ""),
        "question": number if number in page.question_ids else None,
    }


# --- Pro ----------------------------------------------------------------------------------


def _plans_page(
    request: HttpRequest, *, form: RedeemForm | None = None, status: int = 200
) -> HttpResponse:
    user = request.user
    return render(
        request,
        "course/plans.html",
        {
            "rows": plans_content.pro_lessons(),
            "free_gives": plans_content.FREE,
            "pro_gives": plans_content.PRO,
            "is_pro": selectors.user_is_pro(user),
            "pro_until": entitlements.pro_until(user),
            "forever": entitlements.FOREVER,
            "holdings": plans_content.holdings(user),
            "redeem_form": form or RedeemForm(),
            "checkout_done": request.GET.get("checkout") == "done",
            **plans_content.subscription_state(user),
        },
        status=status,
    )


@require_GET
def plans(request: HttpRequest) -> HttpResponse:
    return _plans_page(request)


@require_POST
def plans_redeem(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("course:plans"))
    throttle_page(request, "licences")
    form = RedeemForm(request.POST)
    if form.is_valid():
        try:
            redeemed = licences.redeem(user=request.user, raw_code=form.cleaned_data["code"])
        except licences.LicenceRefused as refused:
            form.add_error("code", refused.message)
        else:
            messages.success(
                request,
                f"The code gave you {redeemed.days} days of Pro, until "
                f"{redeemed.pro_until.astimezone(ZoneInfo(request.user.timezone)):%-d %B %Y}.",
            )
            return HttpResponseRedirect(reverse("course:plans"))
    return _plans_page(request, form=form, status=400)


def _billing_redirect(request: HttpRequest, portal: bool) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("course:plans"))
    throttle_page(request, "billing")
    site = request.build_absolute_uri(reverse("course:plans"))
    try:
        if portal:
            url = billing.portal_url(user=request.user, return_url=site)
        else:
            url = billing.checkout_url(
                user=request.user, success_url=site + "?checkout=done", cancel_url=site
            )
    except billing.AlreadySubscribed:
        url = None  # the page offers the portal instead
    except billing.BillingNotConfigured:
        messages.error(request, "Billing is not set up on this site: nothing was charged.")
        url = None
    except billing.BillingUnavailable:
        messages.error(
            request, "Stripe did not answer; nothing was charged. Try again in a minute."
        )
        url = None
    if url is None:
        return HttpResponseRedirect(reverse("course:plans"))
    return HttpResponseRedirect(url, status=303)


@require_POST
def plans_checkout(request: HttpRequest) -> HttpResponse:
    return _billing_redirect(request, portal=False)


@require_POST
def plans_portal(request: HttpRequest) -> HttpResponse:
    return _billing_redirect(request, portal=True)
