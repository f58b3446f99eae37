"""Background tasks on accounts: each takes ids and calls a service, and is safe to run twice."""

from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from accounts import services

# Failures worth another try later: the database or the mail server briefly away.
TRANSIENT = (OperationalError, InterfaceError, SMTPException, ConnectionError, TimeoutError)


@shared_task(
    name="accounts.notification_emails_send",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=240,
    time_limit=300,
    autoretry_for=TRANSIENT,
    retry_backoff=10,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=6,
)
def notification_emails_send(user_ids: list[int]) -> int:
    """Sends the e-mails owed to these users; a second run finds them sent and sends nothing."""
    return services.notification_emails_send(user_ids=user_ids, now=timezone.now())
