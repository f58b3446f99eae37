"""Running a stored code submission to its end (the `code` queue's task body), and finding
the ones left waiting. Kept apart from `reviews.code` (which sends the task) so that the tasks
module can call it without importing itself back.

A submission's run may start more than once (a worker killed mid-run leaves its message to be
delivered again; a lost message is sent again by the sweep), but it ends once: the end, and the
review it makes, are written in one transaction under the row's lock, and a run that finds it
ended does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config import sandbox
from engine.coding import get_problem
from quizzes.coding import TestResult, grade_source
from reviews import services
from reviews.models import Answer, CodeSubmission

MAX_ATTEMPTS = 3
"""Runs started before a submission that keeps dying is given up, with an error."""
STUCK_AFTER = timedelta(minutes=10)
"""A submission waiting longer than this has lost its message: the sweep sends it again."""


def limits() -> sandbox.Limits:
    """The sandbox's limits, as the settings give them."""
    return sandbox.Limits(
        cpu_seconds=settings.SANDBOX_CPU_SECONDS,
        wall_seconds=float(settings.SANDBOX_WALL_SECONDS),
        case_seconds=float(settings.SANDBOX_CASE_SECONDS),
        memory_bytes=settings.SANDBOX_MEMORY_MB * 1024 * 1024,
    )


def _started(submission_id: int, now: datetime) -> CodeSubmission | None:
    """The submission, marked running (one more attempt), or None when it has ended, is gone,
    or has used its attempts (then it ends in error)."""
    with transaction.atomic():
        submission = (
            CodeSubmission.objects.select_for_update(of=("self",))
            .select_related("question__entry")
            .filter(pk=submission_id)
            .first()
        )
        if submission is None or submission.status in (
            CodeSubmission.Status.DONE,
            CodeSubmission.Status.ERROR,
        ):
            return None
        if submission.attempts >= MAX_ATTEMPTS:
            submission.status = CodeSubmission.Status.ERROR
            submission.message = "The code could not be run to its end; submit it again."
            submission.finished_at = now
            submission.save(update_fields=["status", "message", "finished_at"])
            return None
        submission.status = CodeSubmission.Status.RUNNING
        submission.attempts += 1
        submission.started_at = now
        submission.tests = []
        submission.save(update_fields=["status", "attempts", "started_at", "tests"])
        return submission


def code_submission_run(*, submission_id: int) -> str:
    """Runs a stored submission in the sandbox and ends it (the task's body); safe to run any
    number of times, at once too. Returns what happened, for the worker's log."""
    submission = _started(submission_id, timezone.now())
    if submission is None:
        return "ended already"
    question = submission.question
    problem = get_problem(question.entry.code_problem)
    so_far: list[dict[str, Any]] = []

    def reported(result: TestResult) -> None:
        # Each test's result as it comes, for the page and the API to show while it runs.
        so_far.append(result.to_dict())
        CodeSubmission.objects.filter(
            pk=submission.pk, status=CodeSubmission.Status.RUNNING
        ).update(tests=list(so_far))

    try:
        graded = grade_source(
            problem=problem,
            seed=submission.seed,
            source=submission.source,
            examples_only=submission.run == CodeSubmission.Run.EXAMPLES,
            on_result=reported,
            limits=limits(),
        )
    except sandbox.SandboxUnavailable as error:
        _ended_in_error(submission.pk, f"Code cannot be run here just now: {error}.")
        return "no sandbox"
    return _ended(submission.pk, [t.to_dict() for t in graded.tests], graded.score)


def _ended(submission_id: int, tests: list[dict[str, Any]], score: float) -> str:
    """Writes the end and, for a submission, its review: once, under the row's lock."""
    now = timezone.now()
    with transaction.atomic():
        submission = (
            CodeSubmission.objects.select_for_update(of=("self",))
            .select_related("user", "question__entry")
            .get(pk=submission_id)
        )
        if submission.status in (CodeSubmission.Status.DONE, CodeSubmission.Status.ERROR):
            return "ended by another run"
        submission.tests, submission.score = tests, score
        submission.status, submission.finished_at = CodeSubmission.Status.DONE, now
        fields = ["tests", "score", "status", "finished_at"]
        if submission.run == CodeSubmission.Run.SUBMIT:
            done = services.answer_submit(
                user=submission.user,
                question=submission.question,
                submitted=services.Submitted(
                    response="",
                    mode=Answer.Mode.REVIEW,
                    code_score=score,
                    duration_ms=None,
                ),
                now=now,
            )
            submission.answer_id = int(done.body["answer_id"])
            fields.append("answer")
        submission.save(update_fields=fields)
    return f"done, score {score:.2f}"


def _ended_in_error(submission_id: int, message: str) -> None:
    CodeSubmission.objects.filter(
        pk=submission_id,
        status__in=[CodeSubmission.Status.QUEUED, CodeSubmission.Status.RUNNING],
    ).update(status=CodeSubmission.Status.ERROR, message=message, finished_at=timezone.now())


def code_submissions_resume(
    *, now: datetime, resend: Callable[[int], None], batch_size: int = 200
) -> int:
    """Sends again (`resend`) the submissions left waiting past `STUCK_AFTER` (their message
    lost with a broker, or their worker killed): each runs again, or ends in error after its
    attempts."""
    stuck = list(
        CodeSubmission.objects.filter(
            status__in=[CodeSubmission.Status.QUEUED, CodeSubmission.Status.RUNNING],
            created_at__lt=now - STUCK_AFTER,
        )
        .order_by("created_at")
        .values_list("pk", flat=True)[:batch_size]
    )
    for pk in stuck:
        resend(pk)
    return len(stuck)
