from typing import Any

from django.core.management.base import BaseCommand

from config import schedules


class Command(BaseCommand):
    help = "Add the periodic tasks beat runs, where missing (existing ones are left as they are)."

    def handle(self, *args: Any, **options: Any) -> None:
        added = schedules.install()
        for name in added:
            self.stdout.write(f"Added: {name}")
        self.stdout.write(f"{len(added)} schedule(s) added, {len(schedules.SCHEDULES)} in all.")
