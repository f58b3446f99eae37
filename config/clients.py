"""Who is asking: the client's address, as throttles and the sign-in lockout both see it."""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings


def client_address(request: Any) -> str:
    """The socket's address, or with `NUM_PROXIES` proxies in front, the address the outermost
    of them saw: the NUM_PROXIES-th from the right of X-Forwarded-For.

    Everything left of that is whatever the client chose to send, so it is never used; an
    entry that is not an address (a proxy misconfigured, or too few proxies on the way) falls
    back to the socket's address.
    """
    meta = getattr(request, "META", {})
    remote = str(meta.get("REMOTE_ADDR") or "")
    proxies: int = settings.NUM_PROXIES
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in str(forwarded).split(",")]
    if len(hops) < proxies:
        return remote
    candidate = hops[-proxies]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote
