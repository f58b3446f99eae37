"""What each app holds about a user, gathered for `GET /api/v1/me/export/`.

Apps higher in the dependency order (course, reviews, classrooms) register a section here from
their AppConfig.ready(), so accounts never imports them.
"""

from collections.abc import Callable
from typing import Any

from accounts.models import User

ExportSection = Callable[[User], Any]
_sections: dict[str, ExportSection] = {}


def register(name: str, section: ExportSection) -> None:
    _sections[name] = section


def sections() -> dict[str, ExportSection]:
    return dict(_sections)
