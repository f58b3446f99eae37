"""The OpenAPI schema the code serves is the one checked in as `openapi.yaml`.

Clients are generated from that file, so every change to the contract shows up in review as a
change to it. After changing the API on purpose, write it again with
`WRITE_SCHEMA=1 python3 dev.py test tests/config/test_schema.py`.

The file is the schema production serves, on PostgreSQL. Integer fields take their bounds
from the database's column types, and SQLite's are all 64-bit, so on SQLite the schema is
generated with PostgreSQL's bounds.
"""

import difflib
import os
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.db.backends.base.operations import BaseDatabaseOperations

CHECKED_IN = Path(settings.BASE_DIR) / "openapi.yaml"


def _forget_integer_bounds() -> None:
    """Model fields work out their bounds once; make them do it again."""
    for model in apps.get_models():
        for field in model._meta.get_fields():
            vars(field).pop("validators", None)


@pytest.fixture
def production_integer_bounds(monkeypatch):
    # PostgreSQL's bounds are the defaults that SQLite overrides.
    bounds = BaseDatabaseOperations.integer_field_range.__get__(connection.ops)
    monkeypatch.setattr(connection.ops, "integer_field_range", bounds)
    _forget_integer_bounds()
    yield
    monkeypatch.undo()
    _forget_integer_bounds()


def test_the_served_schema_is_the_checked_in_one(tmp_path, production_integer_bounds):
    generated = tmp_path / "openapi.yaml"

    call_command("spectacular", "--file", str(generated))

    if os.environ.get("WRITE_SCHEMA") == "1":
        CHECKED_IN.write_text(generated.read_text())
    expected = CHECKED_IN.read_text().splitlines(keepends=True)
    actual = generated.read_text().splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(expected, actual, "openapi.yaml", "served", n=2))
    assert not diff, "The API changed; if on purpose, write openapi.yaml again:\n" + diff[:5000]
