"""Database functions the ORM lacks, for PostgreSQL and SQLite alike."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db.models import BooleanField, Expression, F, FloatField, Func


class Epoch(Func):
    """Seconds since 1970 as a float, so timestamps reach NumPy without datetime objects.

    On PostgreSQL `date_part` gives the double directly: `EXTRACT` computes an exact numeric
    first (since PostgreSQL 14), about a fifth of an aggregate over 100,000 cards, and
    rounds to the same double when cast."""

    template = "date_part('epoch', %(expressions)s)"
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


class AnyOf(Expression):
    """`field IN (ids)` with the ids sent as one parameter, for a filter or an aggregate's
    filter: an array on PostgreSQL, a JSON list on SQLite. A thousand ids written as a
    thousand placeholders take Django and psycopg tens of milliseconds to prepare and parse."""

    output_field = BooleanField()
    conditional = True

    def __init__(self, field: str, ids: Sequence[int]) -> None:
        super().__init__()
        if not all(isinstance(pk, int) and not isinstance(pk, bool) for pk in ids):
            raise TypeError("AnyOf takes a list of whole numbers")
        self.column: Any = F(field)
        # A list itself, not a copy: `config.rows.Prepared` finds its parameter by identity.
        self.ids = ids if isinstance(ids, list) else list(ids)

    def get_source_expressions(self) -> list[Any]:
        return [self.column]

    def set_source_expressions(self, exprs: Sequence[Any]) -> None:
        (self.column,) = exprs

    def as_sql(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        sql, params = compiler.compile(self.column)
        return f"{sql} = ANY(%s::bigint[])", [*params, self.ids]

    def as_sqlite(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        sql, params = compiler.compile(self.column)
        return f"{sql} IN (SELECT value FROM json_each(%s))", [*params, json.dumps(self.ids)]
