"""Reads on accounts."""

import unicodedata
from collections.abc import Iterator
from typing import Any

from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import timezone
from knox.models import AuthToken

from accounts import exports
from accounts.models import LicenceCode, Notification, User
from accounts.services import SETTINGS_FIELDS


def user_export(*, user: User) -> dict[str, Any]:
    """Everything the service holds about `user`, as plain JSON-ready values: one key per
    section registered in `accounts.exports`."""
    data: dict[str, Any] = {"exported_at": timezone.now().isoformat()}
    for name, section in sorted(exports.sections().items()):
        value = section(user)
        data[name] = list(value) if isinstance(value, Iterator) else value
    return data


def _iso(moment: Any) -> str | None:
    return moment.isoformat() if moment is not None else None


def export_profile(user: User) -> dict[str, Any]:
    """The account itself: every field but the password's hash."""
    return {
        "id": user.pk,
        "username": user.username,
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "plan": user.plan,
        "pro_until": _iso(user.pro_until),
        "is_active": user.is_active,
        "is_staff": user.is_staff,
        "is_superuser": user.is_superuser,
        "groups": sorted(user.groups.values_list("name", flat=True)),
        "user_permissions": sorted(
            f"{app}.{codename}"
            for app, codename in user.user_permissions.values_list(
                "content_type__app_label", "codename"
            )
        ),
        "date_joined": user.date_joined.isoformat(),
        "last_login": _iso(user.last_login),
        "sessions_ended_at": _iso(user.sessions_ended_at),
        "settings": {field: getattr(user, field) for field in SETTINGS_FIELDS if field != "email"},
        "scheduler": {
            "parameters": user.scheduler_parameters,
            "fitted_at": _iso(user.scheduler_fitted_at),
            "checked_at": _iso(user.scheduler_checked_at),
            "rederived_at": _iso(user.scheduler_rederived_at),
            "easy_answer_ms": user.easy_answer_ms,
            "retention_raise": user.retention_raise,
        },
        "reminders": {
            "reminder_hour": user.reminder_hour,
            "email_reminders": user.email_reminders,
            "reminded_on": _iso(user.reminded_on),
        },
    }


def export_pro(user: User) -> dict[str, Any]:
    """Where the user's Pro came from: every grant, subscription and licence code redeemed."""
    return {
        "grants": [
            {
                "source": g.source,
                "reference": g.reference,
                "starts_at": g.starts_at.isoformat(),
                "ends_at": _iso(g.ends_at),
                "ended_at": _iso(g.ended_at),
                "note": g.note,
            }
            for g in user.grants.order_by("pk")
        ],
        "subscriptions": [
            {
                "stripe_subscription_id": s.stripe_subscription_id,
                "stripe_customer_id": s.stripe_customer_id,
                "status": s.status,
                "current_period_end": _iso(s.current_period_end),
            }
            for s in user.subscriptions.order_by("pk")
        ],
        "licence_codes_redeemed": [
            {"code": c.grouped, "batch": c.batch.name, "redeemed_at": _iso(c.redeemed_at)}
            for c in LicenceCode.objects.filter(redeemed_by=user).select_related("batch")
        ],
    }


def export_tokens(user: User) -> list[dict[str, Any]]:
    """The user's devices: when each token was made and when it expires, never the token."""
    return [
        {"created": t.created.isoformat(), "expiry": _iso(t.expiry)}
        for t in AuthToken.objects.filter(user=user).order_by("created")
    ]


def export_notifications(user: User) -> Iterator[dict[str, Any]]:
    return (
        {
            "kind": n.kind,
            "title": n.title,
            "body": n.body,
            "data": n.data,
            "created_at": n.created_at.isoformat(),
            "emailed_at": _iso(n.emailed_at),
            "read_at": _iso(n.read_at),
        }
        for n in notifications_of(user=user).order_by("created_at", "pk").iterator(exports.ROWS)
    )


def notifications_of(*, user: User) -> QuerySet[Notification]:
    return Notification.objects.filter(user=user).order_by("-created_at", "-pk")


def unread_count(*, user_id: int) -> int:
    """How many of the user's notifications are unread: the bell on every page. Counted in
    plain SQL, which costs a third of the ORM's `count()` (whose query building is most of
    its time for this one-table count)."""
    table = connection.ops.quote_name(Notification._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM {table} WHERE user_id = %s AND read_at IS NULL",
            [user_id],
        )
        row = cursor.fetchone()
    return int(row[0])


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


def devices_of(*, user: User) -> QuerySet[AuthToken]:
    """The user's device tokens, newest first."""
    tokens: QuerySet[AuthToken] = AuthToken.objects.filter(user=user).order_by("-created")
    return tokens
