"""The teachers' pages (`/teach/`) and joining a class (`/join/<code>/`). Each calls the
selectors and services the API calls. A classroom that is not the caller's is a 404, whoever
asks: another teacher, a former member, a learner of another class."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.db.models import Count, Sum
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    StreamingHttpResponse,
)
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from classrooms import selectors, services
from classrooms.api.progress import csv_lines
from classrooms.digests import digest_sections
from classrooms.items import MIN_LEARNERS, ItemStats, classroom_items
from classrooms.models import Assignment, Classroom, Membership
from classrooms.progress import (
    PROGRESS_COLUMNS,
    LearnerProgress,
    assignments_done,
    classroom_progress,
)
from classrooms.services import ClassroomRefused
from classrooms.web.forms import AssignmentForm, ClassroomForm, NewClassroomForm
from config.throttles import throttle_page
from course.models import Lesson, LessonProgress, Report
from quizzes.models import Question
from reviews.models import StudyDay
from reviews.web import charts


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def _taught(request: HttpRequest, classroom_id: int) -> Classroom:
    try:
        access = selectors.classroom_access(user=request.user, classroom_id=classroom_id)
    except Classroom.DoesNotExist:
        raise Http404("classroom") from None
    if not access.is_teacher:
        raise Http404("classroom")
    return access.classroom


def _zone(request: HttpRequest) -> ZoneInfo:
    try:
        return ZoneInfo(getattr(request.user, "timezone", "UTC") or "UTC")
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


# --- the dashboard and a class ------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def dashboard(request: HttpRequest) -> HttpResponse:
    form = NewClassroomForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        classroom = services.classroom_create(
            teacher=request.user,  # type: ignore[arg-type]
            name=form.cleaned_data["name"],
            course=form.cleaned_data["course"],
        )
        messages.success(request, f"“{classroom.name}” is ready. Share its join link.")
        return _see_other(reverse("classrooms:classroom", args=[classroom.pk]))
    taught = [
        c
        for c in selectors.classrooms_of(user=request.user)  # type: ignore[arg-type]
        if c.teacher_id == request.user.pk
    ]
    return render(
        request,
        "classrooms/dashboard.html",
        {
            "current": [c for c in taught if c.archived_at is None],
            "archived": [c for c in taught if c.archived_at is not None],
            "form": form,
        },
        status=400 if form.errors else 200,
    )


def _qr_svg(url: str) -> SafeString:
    qr = segno.make(url, error="m")
    svg = qr.svg_inline(scale=5, dark="#000", light="#fff")
    return mark_safe(
        svg.replace("<svg ", '<svg role="img" aria-label="QR code of the join link" ', 1)
    )


def _join_url(request: HttpRequest, classroom: Classroom) -> str:
    return request.build_absolute_uri(reverse("classrooms:join", args=[classroom.join_code]))


@dataclass(frozen=True)
class AssignmentRow:
    assignment: Assignment
    done: int
    late: int
    not_started: int


@login_required
@require_GET
def classroom(request: HttpRequest, classroom_id: int) -> HttpResponse:
    room = _taught(request, classroom_id)
    members = list(selectors.classroom_members(classroom=room))
    assignments = list(selectors.classroom_assignments(classroom=room))
    rows = _assignment_rows(room, assignments, members)
    last_active = (
        {
            row.user_id: row.last_active
            for row in classroom_progress(classroom=room, now=timezone.now())
        }
        if members
        else {}
    )
    return render(
        request,
        "classrooms/classroom.html",
        {
            "classroom": room,
            "members": [(m, last_active.get(m.user_id)) for m in members],
            "assignments": rows,
            "join_url": _join_url(request, room),
            "qr": _qr_svg(_join_url(request, room)),
            "rename_form": ClassroomForm(initial={"name": room.name}),
            "zone": _zone(request),
        },
    )


def _assignment_rows(
    room: Classroom, assignments: list[Assignment], members: list[Membership]
) -> list[AssignmentRow]:
    ids = [m.user_id for m in members]
    in_time = assignments_done(assignments=assignments, user_ids=ids)
    ever = (
        assignments_done(assignments=[_undated(a) for a in assignments], user_ids=ids)
        if assignments and ids
        else {}
    )
    rows = []
    for a in assignments:
        done = sum(in_time.get((a.pk, u), False) for u in ids)
        late = sum(ever.get((a.pk, u), False) and not in_time.get((a.pk, u), False) for u in ids)
        rows.append(
            AssignmentRow(assignment=a, done=done, late=late, not_started=len(ids) - done - late)
        )
    return rows


FAR_FUTURE = datetime(9000, 1, 1, tzinfo=ZoneInfo("UTC"))


def _undated(a: Assignment) -> Assignment:
    """The same assignment with no deadline: done at all, on time or late."""
    copy = Assignment(
        pk=a.pk,
        classroom_id=a.classroom_id,
        title=a.title,
        lesson_id=a.lesson_id,
        question_ids=a.question_ids,
        due_at=FAR_FUTURE,
    )
    return copy


def _post_action(
    request: HttpRequest, classroom_id: int, act: Callable[[Classroom], str]
) -> HttpResponse:
    room = _taught(request, classroom_id)
    note = act(room)
    if note:
        messages.success(request, note)
    return _see_other(reverse("classrooms:classroom", args=[room.pk]))


@login_required
@require_POST
def rename(request: HttpRequest, classroom_id: int) -> HttpResponse:
    room = _taught(request, classroom_id)
    form = ClassroomForm(request.POST)
    if not form.is_valid():
        members = list(selectors.classroom_members(classroom=room))
        return render(
            request,
            "classrooms/classroom.html",
            {
                "classroom": room,
                "members": [(m, None) for m in members],
                "assignments": _assignment_rows(
                    room, list(selectors.classroom_assignments(classroom=room)), members
                ),
                "join_url": _join_url(request, room),
                "qr": _qr_svg(_join_url(request, room)),
                "rename_form": form,
                "zone": _zone(request),
            },
            status=400,
        )
    services.classroom_rename(classroom=room, name=form.cleaned_data["name"])
    messages.success(request, "Renamed.")
    return _see_other(reverse("classrooms:classroom", args=[room.pk]))


@login_required
@require_POST
def rotate(request: HttpRequest, classroom_id: int) -> HttpResponse:
    def act(room: Classroom) -> str:
        services.classroom_rotate_code(classroom=room)
        return "A new join code is ready; the old one no longer works."

    return _post_action(request, classroom_id, act)


@login_required
@require_POST
def archive(request: HttpRequest, classroom_id: int) -> HttpResponse:
    def act(room: Classroom) -> str:
        if room.archived_at is None:
            services.classroom_archive(classroom=room)
            return "Archived: its code no longer joins and learners no longer see its work."
        services.classroom_restore(classroom=room)
        return "Restored."

    return _post_action(request, classroom_id, act)


@login_required
@require_POST
def remove(request: HttpRequest, classroom_id: int, user_id: int) -> HttpResponse:
    def act(room: Classroom) -> str:
        if not services.member_remove(classroom=room, user_id=user_id):
            raise Http404("member")
        return "Removed from the class."

    return _post_action(request, classroom_id, act)


# --- assignments --------------------------------------------------------------------------


def _assignment_form(request: HttpRequest, room: Classroom, **kwargs: Any) -> AssignmentForm:
    lessons = list(Lesson.objects.live().filter(course_id=room.course_id).order_by("number"))
    questions = [
        (pk, f"Lesson {number}: {key}")
        for pk, key, number in Question.objects.live()
        .filter(lesson__course_id=room.course_id, lesson__archived_at__isnull=True)
        .order_by("lesson__number", "position", "pk")
        .values_list("pk", "key", "lesson__number")
    ]
    return AssignmentForm(
        request.POST or None,
        lessons=lessons,
        questions=questions,
        zone=str(_zone(request)),
        **kwargs,
    )


@login_required
@require_http_methods(["GET", "POST"])
def assignment_new(request: HttpRequest, classroom_id: int) -> HttpResponse:
    room = _taught(request, classroom_id)
    tomorrow = (timezone.now().astimezone(_zone(request)) + timedelta(days=7)).replace(
        hour=17, minute=0, second=0, microsecond=0, tzinfo=None
    )
    return _assignment_page(
        request,
        room,
        None,
        initial={"due_at": tomorrow},
        save=functools.partial(services.assignment_create, classroom=room),
        done="Assignment set.",
    )


def _assignment_of(room: Classroom, assignment_id: int) -> Assignment:
    try:
        return Assignment.objects.select_related("lesson").get(pk=assignment_id, classroom=room)
    except Assignment.DoesNotExist:
        raise Http404("assignment") from None


@login_required
@require_http_methods(["GET", "POST"])
def assignment_edit(request: HttpRequest, classroom_id: int, assignment_id: int) -> HttpResponse:
    room = _taught(request, classroom_id)
    assignment = _assignment_of(room, assignment_id)
    assignment.classroom = room
    return _assignment_page(
        request,
        room,
        assignment,
        initial={
            "title": assignment.title,
            "lesson": assignment.lesson,
            "questions": [str(q) for q in assignment.question_ids],
            "due_at": assignment.due_at.astimezone(_zone(request)).replace(tzinfo=None),
        },
        save=functools.partial(services.assignment_update, assignment=assignment),
        done="Assignment saved.",
    )


def _assignment_page(
    request: HttpRequest,
    room: Classroom,
    assignment: Assignment | None,
    *,
    initial: dict[str, Any],
    save: Callable[..., Assignment],
    done: str,
) -> HttpResponse:
    """The assignment form, new or filled in: a valid POST saves through the service (whose
    refusals land next to their field) and goes back to the class."""
    form = _assignment_form(request, room, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            save(
                title=form.cleaned_data["title"],
                due_at=form.cleaned_data["due_at"],
                lesson=form.cleaned_data["lesson"],
                question_ids=form.question_ids,
            )
        except ClassroomRefused as refused:
            form.add_error(refused.field if refused.field in form.fields else None, refused.message)
        else:
            messages.success(request, done)
            return _see_other(reverse("classrooms:classroom", args=[room.pk]))
    return render(
        request,
        "classrooms/assignment_form.html",
        {"classroom": room, "form": form, "assignment": assignment},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def assignment_delete(request: HttpRequest, classroom_id: int, assignment_id: int) -> HttpResponse:
    def act(room: Classroom) -> str:
        services.assignment_delete(assignment=_assignment_of(room, assignment_id))
        return "Assignment deleted."

    return _post_action(request, classroom_id, act)


# --- progress -----------------------------------------------------------------------------

SORTS: dict[str, Callable[[LearnerProgress], Any]] = {
    "learner": lambda r: r.username.lower(),
    "lessons": lambda r: r.lessons_completed,
    "reviews": lambda r: r.reviews_7d,
    "recall": lambda r: -1 if r.average_retrievability is None else r.average_retrievability,
    "due": lambda r: r.due,
    "assignments": lambda r: r.assignments_done,
    "active": lambda r: r.last_active.timestamp() if r.last_active else 0,
}


@login_required
@require_GET
def progress(request: HttpRequest, classroom_id: int) -> HttpResponse | StreamingHttpResponse:
    room = _taught(request, classroom_id)
    rows = classroom_progress(classroom=room, now=timezone.now())
    if request.GET.get("format") == "csv":
        response = StreamingHttpResponse(
            csv_lines([vars(r) for r in rows], PROGRESS_COLUMNS),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="classroom-{room.pk}-progress.csv"'
        return response
    retention = _retention(room, [r.user_id for r in rows], timezone.now())
    sort = request.GET.get("sort", "learner")
    descending = request.GET.get("order") == "desc"
    if sort == "retention":
        rows = sorted(rows, key=lambda r: retention.get(r.user_id, -1.0), reverse=descending)
    else:
        if sort not in SORTS:
            sort = "learner"
        rows = sorted(rows, key=SORTS[sort], reverse=descending)
    columns = [
        ("learner", "Learner"),
        ("lessons", "Lessons done"),
        ("reviews", "Reviews this week"),
        ("retention", "True retention"),
        ("recall", "Mean recall now"),
        ("due", "Cards due"),
        ("assignments", "Assignments done"),
        ("active", "Last active"),
    ]
    return render(
        request,
        "classrooms/progress.html",
        {
            "classroom": room,
            "rows": [(r, retention.get(r.user_id)) for r in rows],
            "columns": [
                (
                    key,
                    label,
                    key == sort,
                    "desc" if key == sort and not descending else "asc",
                )
                for key, label in columns
            ],
            "descending": descending,
            "assignment_count": Assignment.objects.filter(classroom=room).count(),
        },
    )


# --- joining ------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, code: str) -> HttpResponse:
    room = selectors.classroom_by_code(join_code=code[:40])
    if room is None:
        raise Http404("join code")
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.path)
        return render(request, "classrooms/join.html", {"classroom": room, "signed_out": True})
    member = Membership.objects.filter(classroom=room, user=request.user).exists()
    error = ""
    if request.method == "POST" and not member:
        throttle_page(request, "join")  # one budget with the API's joins
        try:
            services.classroom_join(user=request.user, join_code=room.join_code)
        except ClassroomRefused as refused:
            error = refused.message
        else:
            messages.success(request, f"You joined “{room.name}”.")
            return _see_other("/")
    return render(
        request,
        "classrooms/join.html",
        {
            "classroom": room,
            "member": member,
            "teaches": room.teacher_id == request.user.pk,
            "error": error,
        },
        status=400 if error else 200,
    )


# --- item analysis ------------------------------------------------------------------------

TOO_EASY = 0.9
TOO_HARD = 0.3
DOMINANT_SHARE = 0.5
DOMINANT_MIN = 3


@dataclass(frozen=True)
class ItemRow:
    item: ItemStats
    lesson: str
    flags: list[str]
    reports: int


def item_flags(item: ItemStats) -> list[str]:
    """Why a question is worth a look, in words; empty when nothing stands out."""
    flags = []
    if item.facility is not None and item.facility >= TOO_EASY:
        flags.append("Too easy")
    if item.facility is not None and item.facility <= TOO_HARD:
        flags.append("Too hard")
    if item.discrimination is not None and item.discrimination < 0:
        flags.append("Negative discrimination")
    mistakes = sum(m["count"] for m in item.misconceptions)
    top = item.misconceptions[0]["count"] if item.misconceptions else 0
    if top >= DOMINANT_MIN and top >= DOMINANT_SHARE * mistakes:
        flags.append(f"One mistake dominates: {item.misconceptions[0]['code']}")
    return flags


@login_required
@require_GET
def items(request: HttpRequest, classroom_id: int) -> HttpResponse:
    room = _taught(request, classroom_id)
    stats = classroom_items(classroom=room)
    titles = dict(Lesson.objects.filter(course_id=room.course_id).values_list("slug", "title"))
    reports = dict(
        Report.objects.filter(
            question_id__in=[i.question for i in stats], status=Report.Status.OPEN
        )
        .values("question_id")
        .annotate(n=Count("pk"))
        .values_list("question_id", "n")
    )
    rows = [
        ItemRow(
            item=item,
            lesson=titles.get(item.lesson, item.lesson),
            flags=item_flags(item),
            reports=reports.get(item.question, 0),
        )
        for item in stats
    ]
    return render(
        request,
        "classrooms/items.html",
        {
            "classroom": room,
            "rows": rows,
            "flagged": sum(bool(r.flags) for r in rows),
            "min_learners": MIN_LEARNERS,
        },
    )


REPORTS_SHOWN = 100


@login_required
@require_GET
def reports(request: HttpRequest, classroom_id: int, question_id: int) -> HttpResponse:
    """What learners sent through "Spotted a mistake?" about one question of the class's course:
    every learner's, not only the class's (a flaw is a flaw), with its status and date, and
    without who sent it."""
    room = _taught(request, classroom_id)
    question = (
        Question.objects.live()
        .filter(pk=question_id, lesson__course_id=room.course_id, lesson__archived_at__isnull=True)
        .select_related("lesson")
        .first()
    )
    if question is None:
        raise Http404("question")
    found = list(
        Report.objects.filter(question_id=question.pk)
        .order_by("-created_at", "-pk")
        .only("message", "status", "created_at")[: REPORTS_SHOWN + 1]
    )
    return render(
        request,
        "classrooms/reports.html",
        {
            "classroom": room,
            "question": question,
            "reports": found[:REPORTS_SHOWN],
            "more": len(found) > REPORTS_SHOWN,
            "zone": _zone(request),
            "open": sum(r.status == Report.Status.OPEN for r in found[:REPORTS_SHOWN]),
        },
    )


# --- the weekly digest --------------------------------------------------------------------


@login_required
@require_GET
def digest(request: HttpRequest) -> HttpResponse:
    sections, _ = digest_sections(teacher=request.user, now=timezone.now())  # type: ignore[arg-type]
    return render(request, "classrooms/digest.html", {"sections": sections})


# --- one learner --------------------------------------------------------------------------

RETENTION_DAYS = 30
LEARNER_WEEKS = 12


def _retention(room: Classroom, user_ids: list[int], now: datetime) -> dict[int, float]:
    """Each learner's true retention on the course: the share of mature reviews passed over
    the last month (as on their own stats page, but counting this course alone). One query."""
    if not user_ids:
        return {}
    since = (now - timedelta(days=RETENTION_DAYS)).date()
    rows = (
        StudyDay.objects.filter(
            user_id__in=user_ids, course_id=room.course_id, day__gt=since, mature__gt=0
        )
        .values("user_id")
        .annotate(total=Sum("mature"), passed=Sum("passed"))
        .values_list("user_id", "total", "passed")
        .order_by()
    )
    return {user_id: passed / total for user_id, total, passed in rows if total}


@login_required
@require_GET
def learner(request: HttpRequest, classroom_id: int, user_id: int) -> HttpResponse:
    room = _taught(request, classroom_id)
    now = timezone.now()
    rows = classroom_progress(classroom=room, now=now, only=user_id)
    if not rows:
        raise Http404("member")  # not a member (any more): nothing of theirs is shown
    row = rows[0]
    lessons = list(Lesson.objects.live().filter(course_id=room.course_id).order_by("number"))
    done = dict(
        LessonProgress.objects.filter(
            user_id=user_id, lesson__course_id=room.course_id, completed_at__isnull=False
        ).values_list("lesson_id", "completed_at")
    )
    assignments = list(selectors.classroom_assignments(classroom=room))
    finished = assignments_done(assignments=assignments, user_ids=[user_id])
    today = now.astimezone(_zone(request)).date()
    first = today - timedelta(days=today.weekday() + 7 * (LEARNER_WEEKS - 1))
    per_day = dict(
        StudyDay.objects.filter(
            user_id=user_id, course_id=room.course_id, day__gte=first, reviews__gt=0
        )
        .values_list("day")
        .annotate(n=Sum("reviews"))
        .values_list("day", "n")
        .order_by()
    )
    days = [
        (first + timedelta(days=i), per_day.get(first + timedelta(days=i), 0))
        for i in range((today - first).days + 1)
    ]
    return render(
        request,
        "classrooms/learner.html",
        {
            "classroom": room,
            "row": row,
            "retention": _retention(room, [user_id], now).get(user_id),
            "lessons": [(lesson, done.get(lesson.pk)) for lesson in lessons],
            "lessons_done": sum(1 for lesson in lessons if lesson.pk in done),
            "assignments": [(a, finished.get((a.pk, user_id), False)) for a in assignments],
            "heatmap": charts.heatmap(days, chart_id="learner-heatmap"),
            "heat_levels": charts.heat_levels(max((n for _, n in days), default=0)),
            "week_rows": charts.week_rows(charts.heatmap_weeks(days)),
            "reviewed": sum(n for _, n in days),
            "weeks": LEARNER_WEEKS,
            "zone": _zone(request),
            "now": now,
        },
    )
