"""The `code` queue's tasks: a learner's code run in the sandbox, and the sweep that sends
again what was left waiting. Kept out of `reviews.tasks` (which the card code imports) so the
run's path to the answer service imports nothing back; registered by the app's ready()."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from config.background import AGAIN_IF_LOST, RETRY, send
from reviews import code_runs


@shared_task(
    name="reviews.code_submission_run",
    soft_time_limit=120,
    time_limit=150,
    **AGAIN_IF_LOST,
    **RETRY,
)
def code_submission_run(submission_id: int) -> str:
    """A learner's code, run in the sandbox on the `code` queue (`reviews.code_runs`)."""
    return code_runs.code_submission_run(submission_id=submission_id)


@shared_task(
    name="reviews.code_submissions_resume",
    soft_time_limit=60,
    time_limit=90,
    **AGAIN_IF_LOST,
    **RETRY,
)
def code_submissions_resume() -> int:
    return code_runs.code_submissions_resume(
        now=timezone.now(), resend=lambda pk: send(code_submission_run, pk)
    )
