"""What each app holds about a user, gathered for `GET /api/v1/me/export/`.

Every app registers its sections from its AppConfig.ready() (apps higher in the dependency
order too, so accounts never imports them), naming the models whose rows each one holds. A
model that points at a user is either exported by a section or listed in NOT_EXPORTED with
the reason; a test walks every model, so a new one cannot be forgotten.
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from rest_framework.utils.encoders import JSONEncoder

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


def register_derived(label: str, *, reason: str) -> None:
    """A model whose rows are worked out from what another section exports, so not exported."""
    NOT_EXPORTED[label] = reason


_large: list[Callable[[User], bool]] = []


def register_large(check: Callable[[User], bool]) -> None:
    """A test of whether a user's rows in an app make their export large."""
    _large.append(check)


def is_large(user: User) -> bool:
    """Whether the export is long enough to prepare in the background: tens of seconds to
    write, past what a browser or a proxy waits for."""
    return any(check(user) for check in _large)


def sections() -> dict[str, ExportSection]:
    return {name: section.export for name, section in _sections.items()}


def exported_models() -> dict[str, set[str]]:
    """Each model label, and the sections that export its rows."""
    covered: dict[str, set[str]] = {}
    for name, section in _sections.items():
        for label in section.models:
            covered.setdefault(label, set()).add(name)
    return covered


# Rows a section reads at a time (through a server-side cursor on PostgreSQL).
ROWS = 2_000
# Pieces of the document are handed on at about this size: few enough writes, small memory.
_PIECE = 64 * 1024
# The API's own encoder and settings, so the document is what its JSON renderer would write.
_encode = JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _json(value: Any) -> str:
    # As the API's renderer writes JSON: the two line separators escaped, for JavaScript.
    return _encode(value).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def document(user: User, *, now: datetime) -> Iterator[str]:
    """The export as JSON text, a piece at a time: the same document as every section's value
    gathered into one object (`exported_at` first, then the sections by name), written as it
    is read. A section that returns an iterator (rows read with a server-side cursor) is
    written item by item, so memory stays flat however long the history. Every section is
    read in one read-only transaction, so the document is one moment's truth, and on
    PostgreSQL its cursors send rows as they are read (outside a transaction each would be
    held whole on the server first)."""
    yield "{" + _json("exported_at") + ":" + _json(now.isoformat())
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        pieces: list[str] = []
        size = 0
        for name, section in sorted(sections().items()):
            value = section(user)
            pieces += [",", _json(name), ":"]
            if not isinstance(value, (list, tuple, Iterator)):
                pieces.append(_json(value))
                continue
            pieces.append("[")
            for i, item in enumerate(value):
                text = _json(item)
                pieces.append("," + text if i else text)
                size += len(text)
                if size >= _PIECE:
                    yield "".join(pieces)
                    pieces, size = [], 0
            pieces.append("]")
    yield "".join(pieces) + "}"
