"""The content revision, and what pages keep from the content for one revision.

Every change to the content gives the revision a new random stamp: a content row saved or
deleted (the admin, a shell) through the signals connected by `watch`, and loading content
once, at the end of its transaction (it also writes with `QuerySet.update`, which sends no
signal). The stamp lives in the database, so every process and worker sees a change once it is
committed, and a change rolled back takes its stamp with it.

A page reads the stamp once (one small query) and gets what it builds from the content (a
course's glossary, a lesson's check questions) from `Kept`, which holds it in this process
until the stamp changes. Kept values are shared by every request in the process: they are
read, never changed.
"""

from __future__ import annotations

import secrets
import threading
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from django.db import IntegrityError, connection, models, transaction
from django.db.models.signals import m2m_changed, post_delete, post_save

from config import rows
from config.lru import LRU
from course.models import ContentRevision

T = TypeVar("T")

_batch = threading.local()


def current() -> int:
    """The content revision's stamp now (0 before any content)."""
    table = connection.ops.quote_name(ContentRevision._meta.db_table)
    with rows.cursor(connection) as cursor:  # every request that reads content makes it
        cursor.execute(f"SELECT stamp FROM {table} WHERE id = 1")  # the model's own table
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def of_request(request: Any) -> int:
    """The revision for this request: read on first use and kept with the request, so every
    part of one page sees the same content."""
    revision: int | None = getattr(request, "_content_revision", None)
    if revision is None:
        revision = current()
        request._content_revision = revision
    return revision


def bump() -> None:
    """The content changed (counted when the surrounding transaction commits)."""
    if getattr(_batch, "depth", 0):
        _batch.changed = True
        return
    _bump()


def _bump() -> None:
    stamp = secrets.randbits(62)
    if ContentRevision.objects.filter(pk=1).update(stamp=stamp):
        return
    try:
        with transaction.atomic():
            ContentRevision.objects.create(pk=1, stamp=stamp)
    except IntegrityError:  # made at the same moment by another writer
        ContentRevision.objects.filter(pk=1).update(stamp=stamp)


@contextmanager
def batched() -> Iterator[None]:
    """Many content writes counted as one change, once the block ends without an error (load
    the content inside the same transaction, so the revision commits with the content)."""
    _batch.depth = getattr(_batch, "depth", 0) + 1
    if _batch.depth == 1:
        _batch.changed = False
    try:
        yield
    finally:
        _batch.depth -= 1
    if _batch.depth == 0 and _batch.changed:
        _bump()


def watch(*content: type[models.Model]) -> None:
    """Counts every save and delete of these models, and changes to their many-to-many
    relations, as a change to the content."""
    for model in content:
        uid = f"content-revision-{model._meta.label_lower}"
        post_save.connect(_changed, sender=model, dispatch_uid=f"{uid}-save")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"{uid}-delete")
        for field in model._meta.local_many_to_many:
            through = field.remote_field.through
            m2m_changed.connect(
                _related_changed, sender=through, dispatch_uid=f"{uid}-{field.name}"
            )


def _changed(sender: Any, **kwargs: Any) -> None:
    if not kwargs.get("raw"):  # fixtures loaded as they are
        bump()


def _related_changed(sender: Any, action: str, **kwargs: Any) -> None:
    if action in ("post_add", "post_remove", "post_clear"):
        bump()


_every_kept: weakref.WeakSet[Kept[Any]] = weakref.WeakSet()


def forget_kept() -> None:
    """Drops every kept value in this process, as a new process starts (the tests start each
    test so: content written there with `bulk_create`, which sends no signal, would otherwise
    meet values kept by an earlier test under the same stamp)."""
    for kept in list(_every_kept):
        kept.clear()


class Kept(Generic[T]):
    """Values built from the content, kept in this process for one revision: another revision
    drops them all. At most `size` values, the least recently used dropped first."""

    def __init__(self, size: int = 512) -> None:
        self._revision: int | None = None
        self._values: LRU[T] = LRU(size)
        self._lock = threading.Lock()
        _every_kept.add(self)

    def clear(self) -> None:
        with self._lock:
            self._revision = None
            self._values.clear()

    def get(self, key: Hashable, revision: int, build: Callable[[], T]) -> T:
        with self._lock:
            value = self._values.get(key) if revision == self._revision else None
        if value is not None:
            return value
        # Built outside the lock. Content read after the revision is at least as new as it,
        # so a value kept under a stamp is never older than the content the stamp stands for.
        value = build()
        with self._lock:
            if revision != self._revision:
                self._revision = revision
                self._values.clear()
            self._values.put(key, value)
        return value

    def get_many(
        self,
        keys: Iterable[Hashable],
        revision: int,
        build: Callable[[list[Hashable]], dict[Hashable, T]],
    ) -> dict[Hashable, T]:
        """The values of `keys`, those not kept yet built together by `build` (given the
        missing keys, it returns the values it could make: a key it leaves out is not kept)."""
        wanted = list(dict.fromkeys(keys))
        with self._lock:
            current = revision == self._revision
            found = {k: v for k in wanted if current and (v := self._values.get(k)) is not None}
        missing = [key for key in wanted if key not in found]
        if missing:
            built = build(missing)
            with self._lock:
                if revision != self._revision:
                    self._revision = revision
                    self._values.clear()
                for key, value in built.items():
                    self._values.put(key, value)
            found.update(built)
        return found

    def __len__(self) -> int:
        return len(self._values)
