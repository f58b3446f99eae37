"""The shipped content for tests that need it in the database: read and checked once a test
run (the files do not change while it runs), written for each test that asks. The
`load_content` command itself, reading included, is tested in tests/course."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from course.content.files import Content, read_content
from course.content.sync import Changes, content_sync


@cache
def shipped() -> Content:
    return read_content(Path(settings.CONTENT_DIR).resolve())


def load_shipped() -> Changes:
    """Writes the shipped content, as `load_content` does after its checks."""
    return content_sync(content=shipped(), now=timezone.now(), progress=lambda _line: None)
