"""Writes on course progress and reports: one function per action, keyword-only and typed."""

from datetime import datetime

from django.db import IntegrityError, transaction

from accounts.models import User
from course import selectors
from course.models import Lesson, LessonProgress, Report


class ProRequired(Exception):
    """The lesson is Pro and the learner is not."""


def lesson_complete(*, user: User, lesson: Lesson, now: datetime) -> LessonProgress:
    """Marks the lesson completed; completing it again keeps the first completion time.
    Raises ProRequired for a Pro lesson and a learner without Pro."""
    if not selectors.can_read(user, lesson.access):
        raise ProRequired(lesson.title)
    with transaction.atomic():
        try:
            with transaction.atomic():
                progress, _ = LessonProgress.objects.get_or_create(
                    user=user, lesson=lesson, defaults={"started_at": now}
                )
        except IntegrityError:  # a concurrent first visit created it
            progress = LessonProgress.objects.get(user=user, lesson=lesson)
        progress = LessonProgress.objects.select_for_update().get(pk=progress.pk)
        if progress.completed_at is None:
            # A concurrent first visit may have started it a moment after this request's time.
            progress.completed_at = max(now, progress.started_at)
            progress.save(update_fields=["completed_at"])
    return progress


def report_create(
    *, user: User, message: str, lesson: Lesson | None = None, question_id: int | None = None
) -> Report:
    report = Report(user=user, lesson=lesson, question_id=question_id, message=message)
    report.full_clean()
    report.save()
    return report
