"""Teachers' weekly digest: for each classroom they teach, the week's activity, the learners
falling behind and the questions the class finds hardest, as one notification and e-mail.

The sweep hands on teachers in bounded batches (one query per batch); each teacher's digest is
built by its own task, once per ISO week (the notification's key says which week).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from accounts.models import Notification, User
from accounts.services import notification_create
from classrooms.items import classroom_items
from classrooms.models import Classroom
from classrooms.progress import LearnerProgress, classroom_progress

# A learner is falling behind with this many overdue cards, or with no review in a week.
OVERDUE_BEHIND = 10
SHOWN = 5
# A question is hard for a class when fewer than this share got it right the first time.
HARD = 0.6
SHOWN_HARD = 3


def teacher_digests_sweep(*, digest: Callable[[int], None], batch_size: int = 1_000) -> int:
    """Hands `digest` each user who teaches a classroom; returns how many."""
    teachers = (
        Classroom.objects.filter(teacher__is_active=True)
        .order_by("teacher_id")
        .values_list("teacher_id", flat=True)
        .distinct()
    )
    handed = after = 0
    while True:
        batch = list(teachers.filter(teacher_id__gt=after)[:batch_size])
        for teacher_id in batch:
            digest(teacher_id)
        handed += len(batch)
        if len(batch) < batch_size:
            return handed
        after = batch[-1]


def week_key(now: datetime) -> str:
    year, week, _ = now.isocalendar()
    return f"digest:{year}-W{week:02d}"


def teacher_digest(*, teacher: User, now: datetime) -> Notification | None:
    """Writes this week's digest for `teacher`, or None if it exists already or they teach
    no classroom with members."""
    key = week_key(now)
    if Notification.objects.filter(user=teacher, key=key).exists():
        return None
    sections, summary = digest_sections(teacher=teacher, now=now)
    if not sections:
        return None
    notification, created = notification_create(
        user_id=teacher.pk,
        kind=Notification.Kind.DIGEST,
        key=key,
        title=f"Your classes, week of {(now - timedelta(days=now.weekday())).date():%d %B %Y}",
        body="\n\n".join(sections),
        data={"classrooms": summary},
        email=bool(teacher.email),
        now=now,
    )
    return notification if created else None


def digest_sections(*, teacher: User, now: datetime) -> tuple[list[str], list[dict[str, Any]]]:
    """The digest's text, one section per classroom with members, and
    its figures: what the e-mail says and the digest page shows."""
    classrooms = list(
        Classroom.objects.filter(teacher=teacher).select_related("course").order_by("name", "pk")
    )
    sections = []
    summary = []
    for classroom in classrooms:
        progress = classroom_progress(classroom=classroom, now=now)
        if not progress:
            continue
        behind = _behind(progress, now)
        hard = [
            item
            for item in classroom_items(classroom=classroom)
            if item.facility is not None and item.facility < HARD
        ]
        hardest = sorted(hard, key=lambda i: (i.facility or 0.0, -i.answers))[:SHOWN_HARD]
        active = sum(1 for row in progress if row.reviews_7d)
        reviews = sum(row.reviews_7d for row in progress)
        lines = [
            f"{classroom.name} ({classroom.course.title})",
            f"  {active} of {len(progress)} learners reviewed this week; {reviews} reviews in all.",
        ]
        if behind:
            lines.append("  Falling behind: " + "; ".join(behind[:SHOWN]))
            if len(behind) > SHOWN:
                lines[-1] += f"; and {len(behind) - SHOWN} more"
        for item in hardest:
            lines.append(
                f"  Hard question: {item.key} (lesson {item.lesson}): {item.facility:.0%} right "
                f"on a first try, {item.answers} learners"
            )
        sections.append("\n".join(lines))
        summary.append(
            {
                "classroom": classroom.pk,
                "learners": len(progress),
                "active": active,
                "reviews_7d": reviews,
                "behind": len(behind),
                "hardest": [item.question for item in hardest],
            }
        )
    return sections, summary


def _behind(progress: list[LearnerProgress], now: datetime) -> list[str]:
    rows = []
    for row in progress:
        if row.overdue >= OVERDUE_BEHIND:
            rows.append((0, -row.overdue, f"{row.username} ({row.overdue} cards overdue)"))
        elif not row.reviews_7d:
            idle = (
                f"last active {(now - row.last_active).days} days ago"
                if row.last_active
                else "not started"
            )
            rows.append((1, 0, f"{row.username} ({idle})"))
    return [text for *_, text in sorted(rows)]
