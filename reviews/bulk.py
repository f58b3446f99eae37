"""Writes for a whole batch of reviews, one statement each, whatever the batch's size.

Django's bulk_update builds a CASE expression per field and row, and its bulk_create quotes
one array per column into the query text; for a thousand rows either costs more Python than
the database spends on the write. On PostgreSQL the rows go as one JSON document that the
statement reads with `jsonb_to_recordset`; other databases take Django's own bulk writes.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Field, JSONField, Model

from reviews.models import Answer, Card


def card_schedules_write(*, cards: Sequence[Card], fields: Sequence[str]) -> None:
    """Saves `fields` of cards already in the table: one statement on PostgreSQL, elsewhere
    one UPDATE per card, sent together (executemany)."""
    if not cards:
        return
    quote = connection.ops.quote_name
    table = quote(Card._meta.db_table)
    key = _field(Card, "id")
    columns = [_field(Card, name) for name in fields]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            assignments = ", ".join(f"{_column(f)} = v.{_column(f)}" for f in columns)
            cursor.execute(
                f"UPDATE {table} SET {assignments} "
                f"FROM jsonb_to_recordset(%s::jsonb) AS v({_record([key, *columns])}) "
                f"WHERE {table}.{_column(key)} = v.{_column(key)}",
                [_document(cards, [key, *columns])],
            )
            return
        assignments = ", ".join(f"{_column(f)} = %s" for f in columns)
        cursor.executemany(
            f"UPDATE {table} SET {assignments} WHERE {_column(key)} = %s",
            [
                [f.get_db_prep_save(getattr(card, f.attname), connection) for f in columns]
                + [card.pk]
                for card in cards
            ],
        )


def answers_insert(*, answers: Sequence[Answer]) -> None:
    """Inserts new answers and sets their ids, as `bulk_create` does."""
    if not answers:
        return
    if connection.vendor != "postgresql":
        Answer.objects.bulk_create(answers, batch_size=500)
        return
    key = Answer._meta.pk
    assert key is not None
    columns = [f for f in Answer._meta.concrete_fields if f is not key and not f.generated]
    quote = connection.ops.quote_name
    names = ", ".join(_column(f) for f in columns)
    with connection.cursor() as cursor:
        # The rows come out of the document in order, and the ids back in insertion order,
        # which Django's own bulk_create also counts on for INSERT ... SELECT on PostgreSQL.
        cursor.execute(
            f"INSERT INTO {quote(Answer._meta.db_table)} ({names}) SELECT {names} "
            f"FROM jsonb_to_recordset(%s::jsonb) AS v({_record(columns)}) "
            f"RETURNING {_column(key)}",
            [_document(answers, columns, adding=True)],
        )
        ids = [row[0] for row in cursor.fetchall()]
    for answer, pk in zip(answers, ids, strict=True):
        answer.pk = pk
        answer._state.adding = False
        answer._state.db = connection.alias


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def _column(field: Field[Any, Any]) -> str:
    return connection.ops.quote_name(field.column or field.name)


def _record(fields: Sequence[Field[Any, Any]]) -> str:
    return ", ".join(f"{_column(f)} {f.db_type(connection)}" for f in fields)


def _document(
    rows: Sequence[Model], fields: Sequence[Field[Any, Any]], *, adding: bool = False
) -> str:
    """The rows as a JSON array of objects keyed by column, each value as Django would save
    it; a JSON field's value goes in as JSON, and None is SQL NULL, as Django stores it."""
    as_json = [isinstance(f, JSONField) for f in fields]
    document = []
    for row in rows:
        item = {}
        for f, raw in zip(fields, as_json, strict=True):
            value = f.pre_save(row, adding)
            item[f.column or f.name] = value if raw else f.get_db_prep_save(value, connection)
        document.append(item)
    return json.dumps(document, default=_json_value)


def _json_value(value: object) -> str:
    """Datetimes in full (to the microsecond, with their offset), and UUIDs as text."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not sent as JSON")
