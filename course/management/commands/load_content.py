from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from course.content.files import ContentInvalid, read_content
from course.content.sync import content_sync


class Command(BaseCommand):
    help = (
        "Check the course files (YAML + Markdown) and load them in one transaction: "
        "upsert by slug, archive what was removed. Nothing is written if any file has a problem."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "path",
            nargs="?",
            default=str(settings.CONTENT_DIR),
            help="The content folder (default: %(default)s).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root = Path(options["path"]).resolve()
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder")
        self.stdout.write(f"Checking {root} ...")
        try:
            content = read_content(root)
        except ContentInvalid as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(
                f"{len(exc.problems)} problem(s) found; nothing was loaded."
            ) from None
        lessons = sum(len(course.lessons) for course in content.courses)
        self.stdout.write(
            f"Files are valid: {len(content.courses)} course(s), {lessons} lesson(s)."
        )

        changes = content_sync(content=content, now=timezone.now(), progress=self.stdout.write)
        if changes.changed:
            self.stdout.write(changes.summary())
            self.stdout.write(self.style.SUCCESS("Content loaded."))
        else:
            self.stdout.write(
                self.style.SUCCESS("Nothing changed: the database matches the files.")
            )
