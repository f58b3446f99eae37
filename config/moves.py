"""For migrations that move models from one app to another, keeping their tables and rows.

A moved model keeps its content type row, relabelled, so the admin's permissions granted on it,
and its admin log entries, follow it to the new app.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Step = Callable[[Any, Any], None]


def content_types_move(old_app: str, new_app: str, models: Sequence[str]) -> tuple[Step, Step]:
    """RunPython functions (forwards, backwards) relabelling the models' content types."""

    def relabel(apps: Any, source: str, target: str) -> None:
        content_type = apps.get_model("contenttypes", "ContentType")
        for model in models:
            # A fresh database has none yet (they are made after migrating); a database that
            # already made the new one, empty of grants, gives it up to the old one's rows.
            if content_type.objects.filter(app_label=source, model=model).exists():
                content_type.objects.filter(app_label=target, model=model).delete()
                content_type.objects.filter(app_label=source, model=model).update(app_label=target)
        content_type.objects.clear_cache()

    def forwards(apps: Any, schema_editor: Any) -> None:
        relabel(apps, old_app, new_app)

    def backwards(apps: Any, schema_editor: Any) -> None:
        relabel(apps, new_app, old_app)

    return forwards, backwards
