"""What each app holds about a user, gathered for `GET /api/v1/me/export/`.

Every app registers its sections from its AppConfig.ready() (apps higher in the dependency
order too, so accounts never imports them), naming the models whose rows each one holds. A
model that points at a user is either exported by a section or listed in NOT_EXPORTED with
the reason; a test walks every model, so a new one cannot be forgotten.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from accounts.models import User

ExportSection = Callable[[User], Any]


@dataclass(frozen=True)
class Section:
    export: ExportSection
    models: frozenset[str]  # labels, "reviews.Answer", of the models whose rows it holds


_sections: dict[str, Section] = {}

# Models that point at a user but whose rows are not in the export, and why.
NOT_EXPORTED: dict[str, str] = {
    "admin.LogEntry": (
        "What staff changed in the admin, kept as the site's record of staff actions; it is "
        "about the content and accounts they changed, not the staff member's own learning."
    ),
}


def register(name: str, section: ExportSection, *, models: Iterable[str] = ()) -> None:
    _sections[name] = Section(export=section, models=frozenset(models))


def sections() -> dict[str, ExportSection]:
    return {name: section.export for name, section in _sections.items()}


def exported_models() -> dict[str, set[str]]:
    """Each model label, and the sections that export its rows."""
    covered: dict[str, set[str]] = {}
    for name, section in _sections.items():
        for label in section.models:
            covered.setdefault(label, set()).add(name)
    return covered
