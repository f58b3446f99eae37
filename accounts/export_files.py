"""Handing a learner their export: streamed as it is read, or, for a very large history,
prepared in the background and offered through a link that expires.

The streamed document starts at once and holds a few rows in memory at a time, whatever the
history. A prepared one is written to a file in the default storage by a worker, the learner
is told with a notification (and an e-mail, if they have an address) holding a signed link,
and the file is deleted when the link expires. A link works only for its owner, signed in,
before it expires; a leaked link is no use to anyone else.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from secrets import token_hex

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone

from accounts import exports
from accounts.models import Notification, User
from accounts.services import notification_create, notification_emails_send

FOLDER = "exports"
_SALT = "residual.export-link"


def chunks(user: User, *, now: datetime) -> Iterator[bytes]:
    """The export document as UTF-8 bytes, a piece at a time."""
    for piece in exports.document(user, now=now):
        yield piece.encode()


def streamed(user: User) -> StreamingHttpResponse:
    """The export as a download, streamed: the first bytes go at once, memory stays flat."""
    now = timezone.now()
    response = StreamingHttpResponse(chunks(user, now=now), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{filename(now)}"'
    response["Cache-Control"] = "no-store"
    return response


def filename(now: datetime) -> str:
    return f"residual-export-{now.date().isoformat()}.json"


def request_preparation(user: User, *, send: Callable[[int], None]) -> bool:
    """Starts preparing the learner's export in the background, unless one is under way
    already (for `EXPORT_PREPARING_SECONDS`): asking again does not start another. `send`
    queues the work after the request commits. Returns whether one was started."""
    if not cache.add(f"export-preparing:{user.pk}", True, settings.EXPORT_PREPARING_SECONDS):
        return False
    transaction.on_commit(lambda: send(user.pk))
    return True


@dataclass(frozen=True)
class Prepared:
    name: str
    link: str
    expires_at: datetime


def prepare(user: User, *, now: datetime) -> Prepared:
    """Writes the learner's export to a file, then tells them where to download it."""
    name = f"{FOLDER}/{user.pk}-{token_hex(12)}.json"
    with tempfile.TemporaryFile() as scratch:
        for piece in chunks(user, now=now):
            scratch.write(piece)
        scratch.seek(0)
        name = default_storage.save(name, File(scratch))
    token = signing.TimestampSigner(salt=_SALT).sign_object({"user": user.pk, "file": name})
    link = reverse("export-file", kwargs={"token": token})
    expires_at = now + timedelta(seconds=settings.EXPORT_LINK_SECONDS)
    hours = settings.EXPORT_LINK_SECONDS // 3600
    notification_create(
        user_id=user.pk,
        kind=Notification.Kind.EXPORT,
        key=f"export:{name}",
        title="Your export is ready",
        body=(
            f"Everything Residual holds about you, as one JSON file. Download it within "
            f"{hours} hours, signed in as {user.username}: {settings.SITE_URL}{link}"
        ),
        data={"download": link, "expires_at": expires_at.isoformat()},
        email=bool(user.email),
        now=now,
    )
    notification_emails_send(user_ids=[user.pk], now=now)  # already in the background
    cache.delete(f"export-preparing:{user.pk}")
    return Prepared(name=name, link=link, expires_at=expires_at)


class LinkExpired(Exception):
    """The link is past its time, or its file is gone."""


def file_for(*, token: str, user: User) -> tuple[File[bytes], str]:
    """The prepared file a link names, opened, with its download name; raises LinkExpired,
    or signing.BadSignature for a link that is not ours or not the caller's."""
    signer = signing.TimestampSigner(salt=_SALT)
    try:
        value = signer.unsign_object(token, max_age=settings.EXPORT_LINK_SECONDS)
    except signing.SignatureExpired:
        raise LinkExpired from None
    name = value.get("file", "") if isinstance(value, dict) else ""
    if value.get("user") != user.pk or not name.startswith(f"{FOLDER}/{user.pk}-"):
        raise signing.BadSignature("not the caller's export")
    if not default_storage.exists(name):
        raise LinkExpired
    made = default_storage.get_modified_time(name)
    return default_storage.open(name, "rb"), filename(made)


def expired_files_prune(*, now: datetime) -> int:
    """Deletes prepared exports whose links have expired; returns how many."""
    if not default_storage.exists(FOLDER):
        return 0
    _, names = default_storage.listdir(FOLDER)
    cutoff = now - timedelta(seconds=settings.EXPORT_LINK_SECONDS)
    deleted = 0
    for name in names:
        path = f"{FOLDER}/{name}"
        if default_storage.get_modified_time(path) < cutoff:
            default_storage.delete(path)
            deleted += 1
    return deleted
