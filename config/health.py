"""Health: whether the process reaches what it depends on, for load balancers, container health
checks and whoever is on call.

Without its database the service can do nothing, so that is a 503. Without the cache or the
broker it still serves everyone (throttles let requests through, tasks run in the request), so
those make it "degraded", still a 200: taking every web process out of rotation then would turn
a slower service into no service.
"""

from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.celery import app
from config.problems import PROBLEM_CONTENT_TYPE, PROBLEM_REF, database_unavailable

DEPENDENCIES = ("database", "cache", "broker")
OK, DOWN, NOT_CONFIGURED = "ok", "down", "not_configured"
DEPENDENCY_STATES = [
    (OK, "Reached"),
    (DOWN, "Unreachable"),
    (NOT_CONFIGURED, "Not used: tasks run in the process that sends them"),
]


def database_state() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:
        return DOWN
    return OK


def cache_state() -> str:
    try:
        cache.get("health-probe")
    except Exception:
        return DOWN
    return OK


def broker_state() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return NOT_CONFIGURED  # tasks run in the process that sends them
    try:
        with app.connection_for_write(url=settings.CELERY_BROKER_URL) as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, timeout=1)
    except Exception:
        return DOWN
    return OK


ChecksSerializer = inline_serializer(
    "HealthChecks",
    {name: serializers.ChoiceField(choices=DEPENDENCY_STATES) for name in DEPENDENCIES},
)


class HealthView(APIView):
    """For load balancers and container health checks: what the process reaches."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        operation_id="getHealth",
        responses={
            200: inline_serializer(
                "Health",
                {
                    "status": serializers.ChoiceField(
                        choices=[OK, "degraded"],
                        help_text="degraded: the cache or the broker is down; requests are "
                        "still served.",
                    ),
                    "checks": ChecksSerializer,
                },
            ),
            (503, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                {
                    "allOf": [
                        PROBLEM_REF,
                        {
                            "type": "object",
                            "properties": {"checks": {"$ref": "#/components/schemas/HealthChecks"}},
                            "required": ["checks"],
                        },
                    ]
                },
                description="The database is unreachable; `checks` says what else is down.",
            ),
        },
        summary="What the service reaches: its database, cache and broker",
    )
    def get(self, request: Request) -> Response:
        checks: dict[str, Any] = {
            "database": database_state(),
            "cache": cache_state(),
            "broker": broker_state(),
        }
        if checks["database"] == DOWN:
            raise database_unavailable(extensions={"checks": checks})
        degraded = DOWN in checks.values()
        return Response({"status": "degraded" if degraded else OK, "checks": checks})
