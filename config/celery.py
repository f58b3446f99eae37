"""The Celery app: configured from Django's settings (the `CELERY_` names in config/settings.py).

Tasks live in each app's `tasks.py`: they take ids, call a service, and are safe to run twice.
Without a broker (the embedded default) every task runs in-process when it is sent.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("residual")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
