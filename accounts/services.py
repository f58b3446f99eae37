"""Writes on accounts: one function per action, keyword-only and typed."""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import password_validation
from django.db import transaction
from knox.models import AuthToken

from accounts.models import STUDY_SETTINGS, User

SETTINGS_FIELDS = ("email", *STUDY_SETTINGS)


class WrongPassword(Exception):
    pass


@transaction.atomic
def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    user = User(username=username, email=email)
    password_validation.validate_password(password, user)
    user.set_password(password)
    user.full_clean()
    user.save()
    _, key = token_create(user=user)
    return user, key


def token_create(*, user: User) -> tuple[AuthToken, str]:
    """A new per-device token; past the per-user limit, the oldest one is retired."""
    limit: int = settings.REST_KNOX["TOKEN_LIMIT_PER_USER"]
    ttl: timedelta = settings.REST_KNOX["TOKEN_TTL"]
    live = AuthToken.objects.filter(user=user).order_by("-created")
    stale_ids = list(live.values_list("pk", flat=True)[limit - 1 :])
    if stale_ids:
        AuthToken.objects.filter(pk__in=stale_ids).delete()
    return AuthToken.objects.create(user=user, expiry=ttl)  # type: ignore[no-any-return]


def token_revoke(*, token: AuthToken) -> None:
    token.delete()


def tokens_revoke_all(*, user: User) -> int:
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return int(deleted)


def user_update_settings(*, user: User, **changes: Any) -> User:
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValueError(f"not a setting: {', '.join(sorted(unknown))}")
    for field, value in changes.items():
        setattr(user, field, value)
    user.full_clean(exclude=["password"])
    user.save(update_fields=list(changes))
    return user


@transaction.atomic
def user_delete(*, user: User, password: str) -> None:
    """Deletes the account and, by cascade, every piece of learning data tied to it."""
    if not user.check_password(password):
        raise WrongPassword
    user.delete()


def expired_tokens_prune(*, now: datetime) -> int:
    """Deletes tokens past their expiry (requests refuse them already)."""
    deleted, _ = AuthToken.objects.filter(expiry__lt=now).delete()
    return int(deleted)
