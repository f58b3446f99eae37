from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts.export_files import expired_files_prune
from accounts.services import expired_tokens_prune, notifications_prune
from reviews.due_slots import empty_slots_prune
from reviews.idempotency import idempotency_records_prune


class Command(BaseCommand):
    help = (
        "Delete expired API tokens, idempotency records and notifications past their lifetime, "
        "prepared exports whose links have expired, and due slots left empty."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        now = timezone.now()
        tokens = expired_tokens_prune(now=now)
        records = idempotency_records_prune(now=now)
        notifications = notifications_prune(now=now)
        files = expired_files_prune(now=now)
        slots = empty_slots_prune()
        self.stdout.write(
            f"Deleted {tokens} expired token(s), {records} idempotency record(s), "
            f"{notifications} old notification(s), {files} expired export(s) and {slots} "
            "empty due slot(s)."
        )
