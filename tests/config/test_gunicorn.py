"""The production server's settings, as gunicorn reads them."""

import runpy
from pathlib import Path

from gunicorn.config import Config

SETTINGS = Path(__file__).resolve().parents[2] / "config" / "gunicorn.py"


def read(env, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = Config()
    for name, value in runpy.run_path(str(SETTINGS)).items():
        if name in config.settings:
            config.set(name, value)
    return config


def test_threaded_workers_keep_connections_past_a_proxys_idle_timeout(monkeypatch):
    config = read({}, monkeypatch)

    assert config.worker_class_str == "gthread"
    assert config.threads == 4
    assert config.keepalive == 75  # above the 60 s most proxies keep an idle connection
    assert config.timeout == 30


def test_the_environment_sizes_the_server(monkeypatch):
    config = read({"WEB_WORKERS": "3", "WEB_THREADS": "8", "WEB_KEEPALIVE": "90"}, monkeypatch)

    assert (config.workers, config.threads, config.keepalive) == (3, 8, 90)


def test_sync_workers_are_one_setting_away(monkeypatch):
    config = read({"WEB_WORKER_CLASS": "sync", "WEB_WORKERS": "2"}, monkeypatch)

    assert (config.worker_class_str, config.workers) == ("sync", 2)


def test_the_image_starts_gunicorn_with_these_settings():
    dockerfile = (SETTINGS.parents[1] / "Dockerfile").read_text()

    assert '"-c", "config/gunicorn.py"' in dockerfile
