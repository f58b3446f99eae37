"""Reads on course content and progress. Each returns what one endpoint needs in a fixed
number of queries, however many lessons, sections or terms there are."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, Prefetch, Q, QuerySet
from redis.exceptions import RedisError

from accounts import entitlements
from accounts.models import User
from course import revisions
from course.models import Access, Course, GlossaryTerm, Lesson, LessonProgress, Report, Section

# The question bank lives in a later app (quizzes depends on course, not the other way round),
# so it is looked up by name instead of imported.
QUESTION_MODEL: str = "quizzes" + ".Question"

logger = logging.getLogger(__name__)


# Whether the caller has Pro now: the one rule, kept in accounts (grants and their ends).
user_is_pro = entitlements.has_pro


def can_read(user: Any, access: str) -> bool:
    """Whether the caller may open content with this access: a section, and the questions
    that follow it."""
    return access == Access.FREE or user_is_pro(user)


def completed_lesson_ids(*, user: Any, lesson_ids: list[int] | None = None) -> set[int]:
    if not getattr(user, "is_authenticated", False):
        return set()
    rows = LessonProgress.objects.filter(user=user, completed_at__isnull=False)
    if lesson_ids is not None:
        rows = rows.filter(lesson_id__in=lesson_ids)
    return set(rows.values_list("lesson_id", flat=True))


def course_list() -> QuerySet[Course]:
    return (
        Course.objects.live()
        .annotate(lesson_count=Count("lessons", filter=Q(lessons__archived_at__isnull=True)))
        .order_by("title", "pk")
    )


def content_changed_at() -> datetime | None:
    """When any course, lesson or question last changed, archived ones included, in one
    query. Loading content marks a lesson changed when its sections, terms or prerequisites
    do, a course when its glossary does, and a question when its choices do."""
    times = Course.objects.aggregate(
        course=Max("updated_at"),
        lesson=Max("lessons__updated_at"),
        question=Max("lessons__questions__updated_at"),
    )
    known = [moment for moment in times.values() if moment is not None]
    return max(known, default=None)


def live_lesson(*, slug: str) -> Lesson | None:
    return Lesson.objects.live().filter(slug=slug).first()


def course_detail(*, slug: str) -> Course:
    """The course with its live lessons prefetched in order; raises Course.DoesNotExist."""
    lessons = Lesson.objects.live().order_by("number")
    return (
        Course.objects.live().prefetch_related(Prefetch("lessons", queryset=lessons)).get(slug=slug)
    )


@dataclass(frozen=True)
class LessonPage:
    lesson: Lesson
    sections: list[Section]
    prerequisites: list[str]
    glossary: list[GlossaryTerm]
    previous: Lesson | None
    next: Lesson | None
    completed: bool
    question_ids: list[int]
    section_question_ids: dict[int, list[int]]


_lesson_pages: revisions.Kept[LessonPage] = revisions.Kept(size=256)


def lesson_page(*, slug: str, user: Any, revision: int | None = None) -> LessonPage:
    """Everything the lesson page shows; raises Lesson.DoesNotExist. What comes from the
    content (the lesson, its sections, links and questions for the reader's plan) is kept in
    this process for the content revision (read now unless given), shared by every request:
    read, never changed. Only whether the reader completed the lesson is read each time."""
    page = _lesson_pages.get(
        (slug, user_is_pro(user)),
        revisions.current() if revision is None else revision,
        lambda: _lesson_page_content(slug=slug, user=user),
    )
    completed = page.lesson.pk in completed_lesson_ids(user=user, lesson_ids=[page.lesson.pk])
    return dataclasses.replace(page, completed=completed)


def _lesson_page_content(*, slug: str, user: Any) -> LessonPage:
    """The lesson page as its content makes it for the reader's plan (never completed)."""
    lesson = (
        Lesson.objects.live()
        .filter(course__archived_at__isnull=True)
        .select_related("course")
        .prefetch_related(  # type: ignore[type-var]  # the stubs cannot mix Prefetch models
            Prefetch("sections", queryset=Section.objects.live().order_by("position")),
            Prefetch(
                "prerequisites",
                queryset=Lesson.objects.live().order_by("number").only("slug", "number"),
            ),
            Prefetch(
                "glossary_terms",
                queryset=GlossaryTerm.objects.live()
                .order_by("term")
                .only("slug", "term", "lesson"),
            ),
        )
        .get(slug=slug)
    )
    neighbours = (
        Lesson.objects.live()
        .filter(course_id=lesson.course_id)
        .only("slug", "number", "title", "summary")
    )
    previous = neighbours.filter(number__lt=lesson.number).order_by("-number").first()
    following = neighbours.filter(number__gt=lesson.number).order_by("number").first()
    questions = lesson_questions(lesson=lesson, user=user)
    by_section: dict[int, list[int]] = {}
    for question_id, section_id in questions:
        by_section.setdefault(section_id, []).append(question_id)
    return LessonPage(
        lesson=lesson,
        sections=list(lesson.sections.all()),
        prerequisites=[p.slug for p in lesson.prerequisites.all()],
        glossary=list(lesson.glossary_terms.all()),
        previous=previous,
        next=following,
        completed=False,
        question_ids=[question_id for question_id, _ in questions],
        section_question_ids=by_section,
    )


def lesson_questions(*, lesson: Lesson, user: Any) -> list[tuple[int, int]]:
    """(id, section id) of the lesson's live questions the caller may open, in the order they
    are served: a question is Pro when its section is. Empty until the question bank exists."""
    try:
        question = apps.get_model(QUESTION_MODEL)
    except LookupError:
        return []
    rows = question.objects.filter(lesson=lesson, archived_at__isnull=True)
    if not user_is_pro(user):
        rows = rows.filter(section__access=Access.FREE)
    return list(rows.order_by("position", "pk").values_list("pk", "section_id"))


def question_exists(*, question_id: int) -> bool:
    try:
        question = apps.get_model(QUESTION_MODEL)
    except LookupError:
        return False
    return bool(question.objects.filter(pk=question_id).exists())


def glossary_terms() -> QuerySet[GlossaryTerm]:
    """Live terms of live courses, alphabetical (filters are applied by the API)."""
    return (
        GlossaryTerm.objects.live()
        .filter(course__archived_at__isnull=True)
        .select_related("lesson", "course")
        .order_by("term", "pk")
    )


def export_lesson_progress(user: User) -> list[dict[str, Any]]:
    return [
        {
            "lesson": p.lesson.slug,
            "started_at": p.started_at.isoformat(),
            "completed_at": p.completed_at.isoformat() if p.completed_at else None,
        }
        for p in LessonProgress.objects.filter(user=user).select_related("lesson").order_by("pk")
    ]


def export_reports(user: User) -> list[dict[str, Any]]:
    return [
        {
            "lesson": r.lesson.slug if r.lesson else None,
            "question": r.question_id,
            "message": r.message,
            "status": r.status,
            "created_at": r.created_at.isoformat(),
        }
        for r in Report.objects.filter(user=user).select_related("lesson").order_by("pk")
    ]


def lab_result(*, lab: str, inputs: dict[str, Any], compute: Callable[[], Any]) -> Any:
    """A lab's result for these inputs, computed once per `LABS_CACHE_SECONDS`; a cache that
    cannot be reached is a miss, so the lab still answers."""
    normal = json.dumps(inputs, sort_keys=True, separators=(",", ":"))
    key = f"lab:{lab}:{hashlib.sha256(normal.encode()).hexdigest()}"
    try:
        hit = cache.get(key)
    except (RedisError, OSError):
        logger.warning("lab cache unreachable; computing", exc_info=True)
        hit = None
    if hit is not None:
        return hit
    result = compute()
    try:
        cache.set(key, result, settings.LABS_CACHE_SECONDS)
    except (RedisError, OSError):
        logger.warning("lab cache unreachable; result not kept", exc_info=True)
    return result


def lesson_to_continue(*, user: Any) -> Lesson | None:
    """Where a learner left off: the lesson they opened last and have not completed, else the
    first live lesson they have not completed; None when every lesson is done."""
    if not getattr(user, "is_authenticated", False):
        return None
    lessons = (
        Lesson.objects.live().filter(course__archived_at__isnull=True).select_related("course")
    )
    opened = (
        lessons.filter(progress__user=user, progress__completed_at__isnull=True)
        .order_by("-progress__started_at", "pk")
        .first()
    )
    if opened is not None:
        return opened
    done = LessonProgress.objects.filter(user=user, completed_at__isnull=False).values("lesson_id")
    return lessons.exclude(pk__in=done).order_by("course__title", "number").first()


# --- reads for the course's web pages --------------------------------------------------------


@dataclass(frozen=True)
class CoursePage:
    course: Course
    lessons: list[Lesson]
    """In order, each with `section_count`, `free_section_count` and its live prerequisites."""
    completed: set[int]


def course_page(*, slug: str, user: Any) -> CoursePage:
    """The course page: its live lessons in order, how many of each lesson's sections are
    free, their prerequisites, and which lessons the caller completed; raises
    Course.DoesNotExist."""
    live_sections = Q(sections__archived_at__isnull=True)
    lessons = (
        Lesson.objects.live()
        .order_by("number")
        .annotate(
            section_count=Count("sections", filter=live_sections),
            free_section_count=Count(
                "sections", filter=live_sections & Q(sections__access=Access.FREE)
            ),
        )
        .prefetch_related(
            Prefetch(
                "prerequisites",
                queryset=Lesson.objects.live().order_by("number").only("slug", "number", "title"),
            )
        )
    )
    course = (
        Course.objects.live().prefetch_related(Prefetch("lessons", queryset=lessons)).get(slug=slug)
    )
    rows = list(course.lessons.all())
    completed = completed_lesson_ids(user=user, lesson_ids=[lesson.pk for lesson in rows])
    return CoursePage(course=course, lessons=rows, completed=completed)


def course_glossary(*, course_id: int) -> list[GlossaryTerm]:
    """The course's live glossary with definitions, for linking terms wherever they appear."""
    return list(GlossaryTerm.objects.live().filter(course_id=course_id).order_by("term", "pk"))


def pro_lessons() -> list[Lesson]:
    """Live lessons of live courses with at least one Pro section, in course and lesson
    order, each with its live sections in order."""
    return list(
        Lesson.objects.live()
        .filter(
            course__archived_at__isnull=True,
            sections__access=Access.PRO,
            sections__archived_at__isnull=True,
        )
        .distinct()
        .select_related("course")
        .prefetch_related(
            Prefetch("sections", queryset=Section.objects.live().order_by("position"))
        )
        .order_by("course__title", "number")
    )
