"""Rows of the hot path read by SQL written once, turned into model instances as Django would.

Django compiles a queryset to SQL each time it runs: for the few reads every answer and every
API request makes (the caller's token, the question, the learner's card) that compiling cost
more than the database did. Their SQL is written once from the models' own metadata (table and
column names, so a renamed column follows), and each row goes through the fields' database
converters and `Model.from_db`, so an instance read here is the instance the ORM would give:
same values, same types, deferred fields deferred, `_state` loaded from this database.

Its writes are made the same way (`updating`, `inserting`), and the writes of one answer go to
the database together (`write_together`): on PostgreSQL one statement for all of them. Reads
whose filters change from request to request are querysets compiled once per shape and run
again with the request's values in their parameters' places (`Prepared`).

On PostgreSQL all of these go through `cursor`, which binds their values on the server and
keeps each statement prepared on its connection: the database parses and plans it the first
time and only executes it after that.
"""

from __future__ import annotations

import contextlib
import functools
import json
import uuid
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db import DatabaseError, connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper

M = TypeVar("M", bound=models.Model)

Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]
Chain = tuple[int, Any, list[Converter]]
"""A column's position, its expression, and the converters its values go through."""


def cursor(connection: BaseDatabaseWrapper) -> CursorWrapper:
    """A cursor for the hot path's statements, whose SQL is the same from one request to the
    next. On PostgreSQL (unless `DB_PREPARED_STATEMENTS` is off) its values are bound on the
    server, so psycopg prepares a statement once it has run `prepare_threshold` times on a
    connection (`config.settings`): later runs skip parsing and planning, which cost the
    database more than executing these statements does. Anything else gets
    `connection.cursor()`, whose values are bound in the client, so the ORM's own queries are
    never prepared (their SQL changes with the length of a list, and a pooler may not keep
    them).

    It is Django's own cursor wrapper around the psycopg cursor, so errors are Django's, and
    queries are logged and counted as any others are."""
    if connection.vendor != "postgresql" or not settings.DB_PREPARED_STATEMENTS:
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    from django.db.backends.postgresql.base import ServerBindingCursor
    from psycopg.pq import Format

    with connection.wrap_database_errors:
        raw: Any = ServerBindingCursor(connection.connection)  # type: ignore[call-arg]
        # As Django's own cursors do when the connection's time zone is not the one in use.
        timestamptz = connection.connection.adapters.types["timestamptz"].oid
        loader = connection.connection.adapters.get_loader(timestamptz, Format.TEXT)
        if getattr(loader, "timezone", None) != connection.timezone:
            from django.db.backends.postgresql.psycopg_any import register_tzloader

            register_tzloader(connection.timezone, raw)
        connection.validate_thread_sharing()
        if connection.queries_logged:
            return _bound_debug_cursor_class()(raw, connection)
        return connection.make_cursor(raw)


@functools.cache
def _bound_debug_cursor_class() -> type[CursorWrapper]:
    from django.db.backends.postgresql.base import CursorDebugWrapper
    from psycopg import Error as PsycopgError

    class BoundDebugCursor(CursorDebugWrapper):
        """Logs a statement with its values in place, as Django does when every cursor binds
        on the server (psycopg keeps no text of a prepared statement's run to log)."""

        def debug_sql(
            self,
            sql: Any = None,
            params: Any = None,
            use_last_executed_query: bool = False,
            many: bool = False,
        ) -> Any:
            if use_last_executed_query and not many and params is not None:
                # A value it cannot show leaves the statement logged as written.
                with contextlib.suppress(PsycopgError):
                    sql, use_last_executed_query = self.db.ops.compose_sql(sql, params), False
            return super().debug_sql(sql, params, use_last_executed_query, many)

    return BoundDebugCursor


class Columns(Generic[M]):
    """A model's concrete columns (less `defer`), as a select list and back as an instance."""

    def __init__(self, model: type[M], *, defer: Iterable[str] = ()) -> None:
        deferred = set(defer)
        unknown = deferred - {field.attname for field in model._meta.concrete_fields}
        if unknown:
            raise ValueError(f"{model.__name__} has no columns {sorted(unknown)}")
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if f.attname not in deferred]
        self.names = [field.attname for field in self.fields]
        self._converters: dict[str, list[Chain]] = {}

    def __len__(self) -> int:
        return len(self.fields)

    @property
    def table(self) -> str:
        return self.model._meta.db_table

    def select(self, alias: str, connection: BaseDatabaseWrapper) -> str:
        """The select list, each column qualified by the table's `alias` in the query."""
        quote = connection.ops.quote_name
        return ", ".join(f"{quote(alias)}.{quote(column(field))}" for field in self.fields)

    def converters(self, connection: BaseDatabaseWrapper) -> list[Chain]:
        """The backend's and each field's converters, by column, as the compiler finds them."""
        found = self._converters.get(connection.alias)
        if found is None:
            found = []
            for position, field in enumerate(self.fields):
                column = field.get_col(self.table)
                chain = connection.ops.get_db_converters(column) + column.get_db_converters(
                    connection
                )
                if chain:
                    found.append((position, column, chain))
            self._converters[connection.alias] = found
        return found

    def instance(self, row: Sequence[Any], connection: BaseDatabaseWrapper, start: int = 0) -> M:
        """The instance whose columns are `row[start:start + len(self)]`."""
        values = list(row[start : start + len(self.fields)])
        for position, column, chain in self.converters(connection):
            value = values[position]
            for convert in chain:
                value = convert(value, column, connection)
            values[position] = value
        return self.model.from_db(connection.alias, self.names, values)


def column(field: Any) -> str:
    """The field's column in its table (every concrete field has one)."""
    name = field.column
    assert isinstance(name, str), f"{field} has no column"
    return name


def relate(instance: models.Model, name: str, related: models.Model | None) -> None:
    """Caches `related` as `instance.<name>`, as `select_related` does, so reading it costs no
    query."""
    field = instance._meta.get_field(name)
    assert isinstance(field, models.ForeignKey)
    field.set_cached_value(instance, related)


@functools.cache
def _update_sql(model: type[models.Model], names: tuple[str, ...], alias: str) -> str:
    quote = connections[alias].ops.quote_name
    fields = [model._meta.get_field(name) for name in names]
    assignments = ", ".join(f"{quote(column(field))} = %s" for field in fields)
    key = quote(column(model._meta.pk))
    return (
        f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {key} = %s RETURNING {key}"
    )


@dataclass(frozen=True)
class Write:
    """A statement that writes and returns rows (RETURNING), and what is done with them (as
    `dict`s by column, in JSON's types: numbers, strings for dates and times)."""

    sql: str
    params: list[Any]
    done: Callable[[list[dict[str, Any]]], None] | None = None


def updating(instance: models.Model, names: Sequence[str]) -> Write:
    """The write of the fields `names` of an instance already in its table, as
    `save(update_fields=names)` makes it (the fields' own `pre_save` and conversions), with SQL
    written once. Like `QuerySet.update`, it sends no signals."""
    model = type(instance)
    alias = router.db_for_write(model, instance=instance)
    connection = connections[alias]
    fields = [model._meta.get_field(name) for name in names]
    values = [
        field.get_db_prep_save(field.pre_save(instance, False), connection)  # type: ignore[union-attr]
        for field in fields
    ]

    def done(written: list[dict[str, Any]]) -> None:
        if len(written) != 1:
            raise DatabaseError(f"{model.__name__} {instance.pk} is not in its table to update.")
        instance._state.db = alias

    sql = _update_sql(model, tuple(names), alias)
    return Write(sql, [*values, instance.pk], done)


def update(instance: models.Model, names: Sequence[str]) -> None:
    """`updating`, written now."""
    write_together([updating(instance, names)], using=router.db_for_write(type(instance)))


@functools.cache
def _insert_sql(
    model: type[models.Model], alias: str
) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    connection = connections[alias]
    quote = connection.ops.quote_name
    pk = model._meta.pk
    fields = tuple(f for f in model._meta.concrete_fields if f is not pk)
    made_there = [f.name for f in fields if f.generated or f.has_db_default()]
    if made_there:  # values the database makes, which save() leaves out and reads back
        raise ValueError(f"{model.__name__}: {made_there} are made by the database.")
    names = ", ".join(quote(column(field)) for field in fields)
    values = ", ".join(["%s"] * len(fields))
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({names}) VALUES ({values}) "
        f"RETURNING {quote(column(pk))}"
    )
    return sql, fields


def inserting(instance: models.Model) -> Write:
    """The write of a new instance whose primary key the database gives, as `save()` makes it
    (the fields' own `pre_save`, such as `auto_now_add`, set on the instance now, and
    conversions), with SQL written once. Like `QuerySet.bulk_create`, it sends no signals and
    does not validate."""
    model = type(instance)
    if instance.pk is not None:
        raise ValueError(f"{model.__name__} {instance.pk} already has its primary key.")
    alias = router.db_for_write(model, instance=instance)
    connection = connections[alias]
    sql, fields = _insert_sql(model, alias)
    values = [
        field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields
    ]
    pk = model._meta.pk
    assert pk is not None

    def done(written: list[dict[str, Any]]) -> None:
        (row,) = written
        instance.pk = pk.to_python(row[column(pk)])
        instance._state.adding = False
        instance._state.db = alias

    return Write(sql, values, done)


def insert(instance: models.Model) -> None:
    """`inserting`, written now."""
    write_together([inserting(instance)], using=router.db_for_write(type(instance)))


def write_together(writes: Sequence[Write], *, using: str = "default") -> None:
    """Runs `writes` in their order, then each one's `done` with the rows it returned. On
    PostgreSQL they go as one statement, each write a data-modifying `WITH` query: one round
    trip for all (each sees the database as it was before any of them, so none may depend on
    another's rows). Elsewhere they run one after another."""
    connection = connections[using]
    returned: list[list[dict[str, Any]]] = []
    with cursor(connection) as sending:
        if connection.vendor != "postgresql" or len(writes) == 1:
            for write in writes:
                sending.execute(write.sql, write.params)
                names = [column[0] for column in sending.description or ()]
                returned.append(
                    [_plain(dict(zip(names, row, strict=True))) for row in sending.fetchall()]
                )
        else:
            steps = ", ".join(f"w{n} AS ({write.sql})" for n, write in enumerate(writes))
            rows_of = ", ".join(
                f"(SELECT COALESCE(jsonb_agg(w{n}), '[]')::text FROM w{n})"
                for n in range(len(writes))
            )
            sending.execute(
                f"WITH {steps} SELECT {rows_of}", [p for write in writes for p in write.params]
            )
            returned = [json.loads(text) for text in sending.fetchone()]
    for write, written in zip(writes, returned, strict=True):
        if write.done is not None:
            write.done(written)


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """A row in JSON's types, as PostgreSQL's `jsonb_agg` gives it."""
    return {
        name: value.isoformat()
        if isinstance(value, (date, datetime))
        else str(value)
        if isinstance(value, uuid.UUID)
        else value
        for name, value in row.items()
    }


class Prepared:
    """A read made by a queryset that is compiled once per shape and then run again with
    other values in its parameters' places, so a request pays for none of the ORM's work.

    `build(*shape, **values)` makes the queryset: `shape` (hashable) is what changes the SQL
    (which fields, which filters apply), `values` what only fills its parameters (ids, times,
    slugs, lists of ids). On PostgreSQL the SQL is compiled the first time a shape is asked
    for, with stand-in values that are found again among the parameters, and kept; a value
    the ORM would change on its way to the database (so its stand-in is not found) is refused
    then. Elsewhere the queryset is built and compiled each time. The SQL is the queryset's
    own, so a read prepared here is planned and answered as the queryset's is; a test compares
    the two.

    A value must be an `int`, an aware `datetime`, a `str` or a `list` (one parameter, such
    as an array for `= ANY(%s)`), and the ORM must pass it to the database as it is."""

    def __init__(self, build: Callable[..., models.QuerySet[Any, Any]]) -> None:
        self.build = build
        self._shapes: dict[tuple[str, Hashable], _Shape] = {}

    def sql(
        self, shape: tuple[Hashable, ...] = (), *, using: str = "default", **values: Any
    ) -> tuple[str, list[Any]]:
        """The SQL and parameters of `build(*shape, **values)`."""
        connection = connections[using]
        if connection.vendor != "postgresql":
            return compiled(self.build(*shape, **values), using=using)
        return self._shape(shape, values, using).fill(values)

    def _shape(self, shape: tuple[Hashable, ...], values: dict[str, Any], using: str) -> _Shape:
        key = (using, (shape, tuple(sorted(values))))
        found = self._shapes.get(key)
        if found is None:
            found = self._shapes[key] = self._prepare(shape, values, using)
        return found

    def fetch(
        self,
        shape: tuple[Hashable, ...] = (),
        *,
        limit: int | None = None,
        using: str = "default",
        **values: Any,
    ) -> list[tuple[Any, ...]]:
        """The rows of `build(*shape, **values)` (a `values_list` queryset), the first `limit`
        of them if given, as the queryset gives them (each column through its converters)."""
        connection = connections[using]
        if connection.vendor != "postgresql":
            queryset = self.build(*shape, **values).using(using)
            return list(queryset if limit is None else queryset[:limit])
        prepared = self._shape(shape, values, using)
        sql, params = prepared.fill(values)
        if limit is not None:
            sql, params = f"{sql} LIMIT %s", [*params, limit]
        with cursor(connection) as reading:
            reading.execute(sql, params)
            found = reading.fetchall()
        return [prepared.converted(row, connection) for row in found]

    def _prepare(self, shape: tuple[Hashable, ...], values: dict[str, Any], using: str) -> _Shape:
        stand_ins = {name: _stand_in(value, n) for n, (name, value) in enumerate(values.items())}
        queryset = self.build(*shape, **stand_ins)
        compiler = queryset.query.get_compiler(using=using)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:  # `__in` with the empty list standing in
            raise ValueError(
                "A list is one parameter (such as `= ANY(%s)`), not an `__in` lookup."
            ) from None
        slots: dict[int, str] = {}
        for position, param in enumerate(params):
            for name, stand_in in stand_ins.items():
                if param is stand_in or (type(param) is type(stand_in) and param == stand_in):
                    slots[position] = name
        lost = set(values) - set(slots.values())
        if lost:
            raise ValueError(f"{sorted(lost)} do not reach the SQL as they were given.")
        # The selected columns' converters, as the compiler applies them to each row.
        selected = [expression for expression, _, _ in compiler.select[: compiler.col_count]]
        converters = [
            (position, expression, chain)
            for position, (chain, expression) in compiler.get_converters(selected).items()
        ]
        return _Shape(sql, list(params), slots, converters)


@dataclass(frozen=True)
class _Shape:
    """A prepared read's SQL, its parameters with the stand-ins' places (`slots`), and the
    converters its columns go through."""

    sql: str
    params: list[Any]
    slots: dict[int, str]
    converters: list[Chain]

    def fill(self, values: dict[str, Any]) -> tuple[str, list[Any]]:
        params = list(self.params)
        for position, name in self.slots.items():
            params[position] = values[name]
        return self.sql, params

    def converted(self, row: Sequence[Any], connection: BaseDatabaseWrapper) -> tuple[Any, ...]:
        if not self.converters:
            return tuple(row)
        values = list(row)
        for position, expression, chain in self.converters:
            value = values[position]
            for convert in chain:
                value = convert(value, expression, connection)
            values[position] = value
        return tuple(values)


def _stand_in(value: Any, n: int) -> Any:
    """A value of `value`'s type that no request sends (the `n`th of a read)."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"{value!r} would change the SQL: make it part of the shape.")
    if isinstance(value, int):
        return -2_000_000_000 - n  # within every integer column's range
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise TypeError("A time must be aware.")
        return datetime(1, 1, 1, 0, 0, 0, n + 1, tzinfo=UTC)
    if isinstance(value, str):
        return f"\x00stand-in {n}\x00"
    if isinstance(value, list):
        return []  # found by identity
    raise TypeError(f"{type(value).__name__} is not a value Prepared fills in.")


def compiled(
    queryset: models.QuerySet[Any, Any], *, using: str | None = None
) -> tuple[str, list[Any]]:
    """The queryset's SQL and parameters, as it would run them."""
    sql, params = queryset.query.get_compiler(using=using or queryset.db).as_sql()
    return sql, list(params)
