"""Sending work to the background.

A request sends work once its transaction commits, never inside it
(`transaction.on_commit(lambda: send(task, ...))`): a worker never looks for rows that are not
there yet, and a rolled-back request queues nothing. If the broker cannot take the message
(Redis down), the task runs here instead: slower for this one request, but the work is not
lost. Only small tasks are sent from requests.

Every task is safe to run twice; `AGAIN_IF_LOST` and `RETRY` are the options they share.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task
from django.db import InterfaceError, OperationalError

logger = logging.getLogger(__name__)

# Failures worth another try later: the database briefly away.
TRANSIENT = (OperationalError, InterfaceError)
RETRY: dict[str, Any] = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 10,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 5,
}
# Idempotent tasks are acknowledged when done: one whose worker dies is delivered again.
AGAIN_IF_LOST: dict[str, Any] = {"acks_late": True, "reject_on_worker_lost": True}


def send(task: Task[Any, Any], *args: Any) -> None:
    """Queues `task` now, or runs it here if the broker cannot take it."""
    try:
        task.apply_async(args, retry=False)
    except Exception:
        logger.warning("The broker did not take %s%r; running it here.", task.name, args)
        try:
            task.apply(args, throw=True)
        except Exception:
            logger.exception("%s%r failed", task.name, args)
