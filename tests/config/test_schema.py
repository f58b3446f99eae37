"""The OpenAPI schema the code serves is the one checked in as `openapi.yaml`.

Clients are generated from that file, so every change to the contract shows up in review as a
change to it. After changing the API on purpose, write it again with
`python3 dev.py manage spectacular --file openapi.yaml`.
"""

import difflib
from pathlib import Path

from django.conf import settings
from django.core.management import call_command

CHECKED_IN = Path(settings.BASE_DIR) / "openapi.yaml"


def test_the_served_schema_is_the_checked_in_one(tmp_path):
    generated = tmp_path / "openapi.yaml"

    call_command("spectacular", "--file", str(generated))

    expected = CHECKED_IN.read_text().splitlines(keepends=True)
    actual = generated.read_text().splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(expected, actual, "openapi.yaml", "served", n=2))
    assert not diff, "The API changed; if on purpose, write openapi.yaml again:\n" + diff[:5000]
