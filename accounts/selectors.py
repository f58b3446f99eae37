"""Reads on accounts."""

import unicodedata
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from knox.models import AuthToken

from accounts import exports
from accounts.models import Notification, User
from accounts.services import SETTINGS_FIELDS


def user_export(*, user: User) -> dict[str, Any]:
    """Everything the service holds about `user`, as plain JSON-ready values."""
    profile = {
        "id": user.pk,
        "username": user.username,
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "plan": user.plan,
        "date_joined": user.date_joined.isoformat(),
        "last_login": user.last_login.isoformat() if user.last_login else None,
        "settings": {field: getattr(user, field) for field in SETTINGS_FIELDS if field != "email"},
    }
    tokens = [
        {"created": t.created.isoformat(), "expiry": t.expiry.isoformat() if t.expiry else None}
        for t in AuthToken.objects.filter(user=user).order_by("created")
    ]
    notifications = [
        {
            "kind": n.kind,
            "title": n.title,
            "body": n.body,
            "data": n.data,
            "created_at": n.created_at.isoformat(),
            "emailed_at": n.emailed_at.isoformat() if n.emailed_at else None,
            "read_at": n.read_at.isoformat() if n.read_at else None,
        }
        for n in notifications_of(user=user).order_by("created_at", "pk")
    ]
    data: dict[str, Any] = {
        "exported_at": timezone.now().isoformat(),
        "profile": profile,
        "tokens": tokens,
        "notifications": notifications,
    }
    for name, section in sorted(exports.sections().items()):
        data[name] = section(user)
    return data


def notifications_of(*, user: User) -> QuerySet[Notification]:
    return Notification.objects.filter(user=user).order_by("-created_at", "-pk")


def username_key(name: str) -> str:
    """What a username reads as: NFKC-normalized and case-folded, so `ａｌｉｃｅ`, `ALICE` and
    `alice` are one name."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _same_name(name: str) -> Q:
    # Stored usernames are NFKC already; folding catches what the database's own
    # case-insensitive match does not (ß against ss).
    return Q(username__iexact=unicodedata.normalize("NFKC", name)) | Q(
        username__iexact=username_key(name)
    )


def username_taken(*, username: str) -> bool:
    """Whether an account already has this name, or one that reads the same."""
    return User.objects.filter(_same_name(username)).exists()


def username_on_record(*, typed: str) -> str:
    """The username of the one account whose name reads as `typed`, for signing in; `typed`
    itself when there is no such account or, for names older than the look-alike check,
    more than one."""
    if User.objects.filter(username=typed).exists():
        return typed
    matches = list(User.objects.filter(_same_name(typed)).values_list("username", flat=True)[:2])
    return matches[0] if len(matches) == 1 else typed
