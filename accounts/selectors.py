"""Reads on accounts."""

from typing import Any

from django.db.models import QuerySet
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
