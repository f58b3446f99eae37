"""Rows of the hot path read by SQL written once, turned into model instances as Django would.

Django compiles a queryset to SQL each time it runs: for the few reads every answer and every
API request makes (the caller's token, the question, the learner's card) that compiling cost
more than the database did. Their SQL is written once from the models' own metadata (table and
column names, so a renamed column follows), and each row goes through the fields' database
converters and `Model.from_db`, so an instance read here is the instance the ORM would give:
same values, same types, deferred fields deferred, `_state` loaded from this database.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from django.db import DatabaseError, connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper

M = TypeVar("M", bound=models.Model)

Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]
Chain = tuple[int, Any, list[Converter]]
"""A column's position, its expression, and the converters its values go through."""


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
    return f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {key} = %s"


def update(instance: models.Model, names: Sequence[str]) -> None:
    """Writes the fields `names` of an instance already in its table, as
    `save(update_fields=names)` does (the fields' own `pre_save` and conversions), with SQL
    written once. Like `QuerySet.update`, it sends no signals."""
    model = type(instance)
    connection = connections[router.db_for_write(model, instance=instance)]
    fields = [model._meta.get_field(name) for name in names]
    values = [
        field.get_db_prep_save(field.pre_save(instance, False), connection)  # type: ignore[union-attr]
        for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(model, tuple(names), connection.alias), [*values, instance.pk])
        if cursor.rowcount != 1:
            raise DatabaseError(f"{model.__name__} {instance.pk} is not in its table to update.")
    instance._state.db = connection.alias
