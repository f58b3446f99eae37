from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from reviews.due_slots import recount_everyone
from reviews.rollups import rebuild_everyone


class Command(BaseCommand):
    help = (
        "Rebuild learners' study rollups (per course and study day) from the review log, "
        "and count their due slots (the forecast's) again from their cards, which stay the "
        "truth: after restoring a backup, or to check them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", type=int, action="append", help="Only this user id.")

    def handle(self, *args: Any, **options: Any) -> None:
        learners = rebuild_everyone(user_ids=options["user"])
        self.stdout.write(f"Rebuilt the rollups of {learners} learner(s).")
        counted = recount_everyone(user_ids=options["user"])
        self.stdout.write(f"Counted the due slots of {counted} learner(s) again.")
