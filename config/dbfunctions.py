"""Database functions the ORM lacks, for PostgreSQL and SQLite alike."""

from __future__ import annotations

from typing import Any

from django.db.models import FloatField, Func


class Epoch(Func):
    """Seconds since 1970 as a float, so timestamps reach NumPy without datetime objects."""

    template = "CAST(EXTRACT(EPOCH FROM %(expressions)s) AS double precision)"
    output_field = FloatField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        return self.as_sql(
            compiler,
            connection,
            # Whole seconds, plus the microseconds Django writes after them: exact, where
            # julianday's float would be a few microseconds off.
            template=(
                "(round((julianday(substr(%(expressions)s, 1, 19)) - 2440587.5) * 86400.0)"
                " + COALESCE(CAST(substr(%(expressions)s, 21, 6) AS REAL), 0) / 1e6)"
            ),
            **extra_context,
        )
