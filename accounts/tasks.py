"""Background tasks on accounts: each takes ids and calls a service, and is safe to run twice."""

from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from accounts import export_files, services
from accounts.models import User

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


@shared_task(
    name="accounts.export_prepare",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=1800,
    time_limit=1900,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=10,
    max_retries=3,
)
def export_prepare(user_id: int) -> str | None:
    """Writes the user's export to a file and tells them; run twice, it writes a second file
    (each link names its own), which costs space until the links expire, never data."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return None
    return export_files.prepare(user, now=timezone.now()).name
