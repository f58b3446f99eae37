"""Production settings pass Django's deployment checks; the API docs render."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # Not the browser tests' lifted async guard either: the deploy check flags it.
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_production_settings_pass_check_deploy_with_no_warnings():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="k3y-" + "9f8e7d6c5b4a" * 6,
        ALLOWED_HOSTS="residual.example",
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_flags_the_development_secret_key():
    result = manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="0")

    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


@pytest.mark.django_db(transaction=True)
def test_the_api_docs_render_with_their_assets_served_locally(api):
    page = api.get("/api/v1/docs/", headers={"Accept": "text/html"})
    schema = api.get("/api/v1/schema/", params={"format": "json"})

    assert page.status_code == 200
    assert "swagger-ui" in page.text
    assert "/api/v1/schema/" in page.text
    assets = [line.split('"')[1] for line in page.text.splitlines() if 'src="/static/' in line]
    assert assets, page.text
    for asset in assets:
        assert api.get(asset, headers={"Accept": "*/*"}).status_code == 200, asset
    assert schema.json()["info"]["title"] == "Residual API"
    assert "/api/v1/lessons/{slug}/" in schema.json()["paths"]
