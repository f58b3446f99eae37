"""Writes over many rows in bounded pieces, so no one statement holds locks for long."""

from typing import Any

from django.db.models import QuerySet


def delete_in_batches(queryset: QuerySet[Any], *, batch_size: int) -> int:
    """Deletes the rows of `queryset`, `batch_size` at a time in its order; returns how many."""
    deleted = 0
    while True:
        ids = list(queryset.values_list("pk", flat=True)[:batch_size])
        if not ids:
            return deleted
        deleted += queryset.model.objects.filter(pk__in=ids).delete()[0]
