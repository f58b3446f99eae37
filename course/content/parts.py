"""Content kinds that later apps add to `load_content` (the question bank, for one).

An app registers a part from its AppConfig.ready(); course never imports it. Each part reads
and checks its own files after the courses are read, reporting problems through the same
reader, and writes its rows in the same transaction after the courses are written.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from course.content.files import CourseData, Reader
    from course.content.sync import Changes


class ContentPart(Protocol):
    def read(self, *, reader: Reader, root: Path, courses: list[CourseData]) -> Any:
        """Check this part's files; report problems with `reader.problem`; return its data."""

    def sync(
        self, data: Any, *, now: datetime, changes: Changes, progress: Callable[[str], None]
    ) -> None:
        """Write the checked data (inside the loader's transaction)."""


_parts: dict[str, ContentPart] = {}


def register(name: str, part: ContentPart) -> None:
    _parts[name] = part


def registered() -> dict[str, ContentPart]:
    return dict(_parts)
