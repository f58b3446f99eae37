"""Coding questions answered: a learner's code stored, run in the sandbox by a worker of the
`code` queue (`reviews.tasks.code_submission_run`), its tests' results written as they come,
and, for a submission, a review of the card with its score.

A submission is on disk before it runs. Its run may start more than once (a worker killed
mid-run leaves its message to be delivered again; a lost message is sent again by the sweep),
but it ends once: the end, and the review it makes, are written in one transaction under the
row's lock, and a run that finds it ended does nothing. So it is never lost, never graded
twice.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db import transaction

from accounts.models import User
from config import sandbox
from config.background import send
from quizzes.coding import MAX_SOURCE, hidden_seed
from quizzes.errors import AnswerRefused, invalid_field
from quizzes.models import Question
from reviews import code_tasks
from reviews.models import CodeSubmission


def unavailable() -> str:
    """Why code cannot run on this server now ("" when it can)."""
    return sandbox.unavailable_reason()


def code_submit(
    *,
    user: User,
    question: Question,
    source: str,
    run: str,
    now: datetime,
    client_id: uuid.UUID | None = None,
) -> CodeSubmission:
    """Stores the code and sends it to the `code` queue once the transaction commits. Refused
    (`AnswerRefused`) before anything is stored: a question that is not a coding question,
    source too long or holding a NUL, an unknown run, and any code at all where the sandbox
    cannot run here."""
    if question.kind != Question.Kind.CODE or not question.in_bank:
        raise AnswerRefused(422, None, "not_code", "This question is not answered with code.")
    if run not in CodeSubmission.Run.values:
        raise invalid_field(
            "run", "invalid_choice", "Run the examples or submit: examples or submit."
        )
    if len(source) > MAX_SOURCE:
        raise invalid_field(
            "source", "max_length", f"At most {MAX_SOURCE:,} characters of code, please."
        )
    if "\x00" in source:
        raise invalid_field("source", "null_character", "The code holds a NUL character.")
    reason = unavailable()
    if reason:
        raise AnswerRefused(
            503, None, "code_unavailable", f"Code cannot be run here just now: {reason}."
        )
    if client_id is not None:
        first = CodeSubmission.objects.filter(user=user, client_id=client_id).first()
        if first is not None:
            return first
    submission = CodeSubmission(
        user=user,
        question=question,
        run=run,
        source=source,
        seed=hidden_seed(question.key),
        client_id=client_id,
        created_at=now,
    )
    submission.full_clean(exclude=["user", "question", "answer"])
    submission.save()
    transaction.on_commit(lambda: send(code_tasks.code_submission_run, submission.pk))
    return submission


def submission_of(*, user: User, submission_id: int) -> CodeSubmission | None:
    """The learner's own submission (None for anyone else's)."""
    return (
        CodeSubmission.objects.select_related("question__entry", "question__category", "answer")
        .filter(user=user, pk=submission_id)
        .first()
    )


def submission_shape(submission: CodeSubmission) -> dict[str, Any]:
    """A submission as the API and the page show it: its tests so far, its score once done,
    the review it made, and the model solution once it has been submitted."""
    from reviews.feedback import moment

    done = submission.status == CodeSubmission.Status.DONE
    tests = list(submission.tests or [])
    review = None
    if submission.answer is not None and submission.answer.card_after:
        from reviews.feedback import past_answer_result

        review = past_answer_result(submission.answer)["review"]
    shape: dict[str, Any] = {
        "id": submission.pk,
        "question": submission.question_id,
        "run": submission.run,
        "status": submission.status,
        "tests": tests,
        "passed": sum(1 for t in tests if t.get("passed")),
        "score": submission.score if done else None,
        "message": submission.message,
        "review": review,
        "created_at": moment(submission.created_at),
        "finished_at": moment(submission.finished_at) if submission.finished_at else None,
    }
    if done and submission.run == CodeSubmission.Run.SUBMIT:
        shape["solution"] = submission.question.entry.code_solution
    return shape
