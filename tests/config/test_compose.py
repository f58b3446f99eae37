"""docker-compose.yml cannot run here, so its shape is checked: it must stay valid."""

from pathlib import Path

import yaml
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_web_on_postgres_and_redis_with_health_checks():
    services = compose()["services"]

    assert {"web", "db", "redis", "migrate"} <= set(services)
    for name in ("web", "db", "redis"):
        assert services[name]["healthcheck"]["test"], name
    assert "--appendonly" in services["redis"]["command"]
    assert services["web"]["depends_on"]["migrate"]["condition"] == (
        "service_completed_successfully"
    )
    env = services["web"]["environment"]
    assert env["DATABASE_URL"].startswith("postgres://")
    assert env["REDIS_URL"].startswith("redis://")
    assert env["DEBUG"] == "0"


def test_the_image_installs_from_the_hash_pinned_lock():
    dockerfile = (ROOT / "Dockerfile").read_text()

    assert "--require-hashes" in dockerfile
    assert "requirements.lock" in dockerfile
    assert "USER residual" in dockerfile


def test_the_health_endpoint_answers_over_plain_http(client, db):
    response = client.get("/api/v1/health/")

    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_compose_runs_a_worker_and_beat_on_the_redis_broker():
    services = compose()["services"]

    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]
    for name in ("worker", "beat"):
        assert services[name]["healthcheck"]["test"], name
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )
        env = services[name]["environment"]
        assert env["CELERY_BROKER_URL"].startswith("redis://redis:6379/")
        assert env["CELERY_BROKER_URL"] != env["REDIS_URL"]


def test_learners_code_runs_on_its_own_worker_with_the_least_privileges():
    services = compose()["services"]
    code = services["code-worker"]

    command = code["command"]
    assert command[:4] == ["celery", "-A", "config", "worker"]
    assert command[command.index("--queues") + 1] == "code"
    assert "--queues" not in services["worker"]["command"]  # the other worker takes the rest
    assert code["user"] == "residual"
    assert code["read_only"] is True
    assert code["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in code["security_opt"]
    assert "ports" not in code
    assert code["healthcheck"]["test"]
    assert "bubblewrap" in (ROOT / "Dockerfile").read_text()
