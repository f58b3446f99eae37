"""Reads on accounts."""

from typing import Any

from django.utils import timezone
from knox.models import AuthToken

from accounts import exports
from accounts.models import User
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
    data: dict[str, Any] = {
        "exported_at": timezone.now().isoformat(),
        "profile": profile,
        "tokens": tokens,
    }
    for name, section in sorted(exports.sections().items()):
        data[name] = section(user)
    return data
