from typing import Any

from django.core.management.base import BaseCommand

from reviews.tasks import prune_expired


class Command(BaseCommand):
    help = (
        "Delete expired API tokens, idempotency records and notifications past their lifetime, "
        "prepared exports whose links have expired, and due slots left empty."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        # The nightly task's own work, run here and now.
        deleted = prune_expired()
        self.stdout.write(
            f"Deleted {deleted['tokens']} expired token(s), "
            f"{deleted['idempotency_records']} idempotency record(s), "
            f"{deleted['notifications']} old notification(s), {deleted['exports']} expired "
            f"export(s) and {deleted['empty_due_slots']} empty due slot(s)."
        )
