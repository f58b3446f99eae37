"""Background tasks for teachers: each takes ids (or nothing), calls a service, and is safe to
run twice. The weekly sweep is scheduled in config/schedules.py.

Task names are what beat's stored schedules and queued messages carry, so they keep the
`quizzes.` prefix they were first published under.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from accounts.models import User
from accounts.tasks import notification_emails_send
from classrooms import digests
from config import background
from config.background import AGAIN_IF_LOST, RETRY


@shared_task(
    name="quizzes.teacher_digests", soft_time_limit=600, time_limit=660, **AGAIN_IF_LOST, **RETRY
)
def teacher_digests() -> int:
    def digest(teacher_id: int) -> None:
        teacher_digest.delay(teacher_id)

    return digests.teacher_digests_sweep(digest=digest)


@shared_task(
    name="quizzes.teacher_digest", soft_time_limit=300, time_limit=360, **AGAIN_IF_LOST, **RETRY
)
def teacher_digest(teacher_id: int) -> bool:
    teacher = User.objects.filter(pk=teacher_id, is_active=True).first()
    if teacher is None:
        return False
    now = timezone.now()
    written = digests.teacher_digest(teacher=teacher, now=now) is not None
    background.send(notification_emails_send, [teacher_id])
    return written
