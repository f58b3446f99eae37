"""Throttles that fail open: when the cache (Redis) is unreachable, a request is let through
and the failure logged, so the request path never waits on or fails with Redis."""

import logging
from typing import Any

from redis.exceptions import RedisError
from rest_framework import throttling

logger = logging.getLogger(__name__)


class FailOpen:
    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return super().allow_request(request, view)  # type: ignore[misc, no-any-return]
        except (RedisError, OSError):
            logger.warning("throttle cache unreachable; letting the request through", exc_info=True)
            return True


class ScopedRateThrottle(FailOpen, throttling.ScopedRateThrottle):
    pass


class SimpleRateThrottle(FailOpen, throttling.SimpleRateThrottle):
    pass
