"""Locks held to the end of a transaction, for work that rows alone cannot serialize."""

from __future__ import annotations

import hashlib

from django.db import connection


def transaction_lock(name: str, *, wait: bool = True) -> bool:
    """Takes a lock on `name` held to the end of the transaction (a PostgreSQL advisory lock):
    waits for it, or with `wait=False` returns False at once when someone else holds it. On
    SQLite, writers are serialized anyway, so it is always taken."""
    if connection.vendor != "postgresql":
        return True
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    function = "pg_advisory_xact_lock" if wait else "pg_try_advisory_xact_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [int.from_bytes(digest, "big", signed=True)])
        taken = cursor.fetchone()[0]
    return wait or bool(taken)
