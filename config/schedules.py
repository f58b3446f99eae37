"""The periodic tasks beat runs, kept in the database (django-celery-beat) so staff can change
their times, or pause one, in the admin.

`install` adds the ones that are missing and leaves existing ones as staff set them. A
migration runs it, and so does `manage.py install_schedules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps as global_apps
from django.utils import timezone


@dataclass(frozen=True)
class Schedule:
    name: str
    task: str
    description: str
    every_minutes: int | None = None
    crontab: dict[str, str] | None = None


SCHEDULES = (
    Schedule(
        name="Due-review reminders",
        task="quizzes.reminders_sweep",
        description="Reminds learners whose local reminder hour has come and who have cards due.",
        every_minutes=15,
    ),
    Schedule(
        name="Refit learners' schedulers",
        task="quizzes.refit_sweep",
        description="Fits FSRS parameters for learners with enough new reviews since the last fit.",
        crontab={"minute": "30", "hour": "3"},
    ),
    Schedule(
        name="Teachers' weekly digest",
        task="quizzes.teacher_digests",
        description="Sends each teacher the week in their classrooms.",
        crontab={"minute": "0", "hour": "7", "day_of_week": "1"},
    ),
    Schedule(
        name="Code left waiting",
        task="reviews.code_submissions_resume",
        description="Sends again the coding submissions whose message or worker was lost.",
        every_minutes=5,
    ),
    Schedule(
        name="Prune expired records",
        task="quizzes.prune_expired",
        description="Deletes expired tokens, and idempotency records and notifications grown old.",
        crontab={"minute": "15", "hour": "4"},
    ),
)


def install(apps: Any = global_apps) -> list[str]:
    """Adds each missing schedule; returns the names added."""
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    added = []
    for schedule in SCHEDULES:
        if PeriodicTask.objects.filter(name=schedule.name).exists():
            continue
        when: dict[str, Any] = {}
        if schedule.every_minutes is not None:
            when["interval"], _ = IntervalSchedule.objects.get_or_create(
                every=schedule.every_minutes, period="minutes"
            )
        else:
            fields = {"minute": "*", "hour": "*", "day_of_week": "*", "day_of_month": "*"}
            fields |= {"month_of_year": "*", **(schedule.crontab or {})}
            when["crontab"], _ = CrontabSchedule.objects.get_or_create(**fields, timezone="UTC")
        PeriodicTask.objects.create(
            name=schedule.name, task=schedule.task, description=schedule.description, **when
        )
        added.append(schedule.name)
    if added:
        # Tells a running beat to reload its schedule.
        PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})
    return added
