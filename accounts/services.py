"""Writes on accounts: one function per action, keyword-only and typed."""

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection
from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone
from knox.models import AuthToken

from accounts.models import STUDY_SETTINGS, Notification, User
from config.batches import delete_in_batches

SETTINGS_FIELDS = ("email", *STUDY_SETTINGS)

# An e-mail not sent within this long after its notification is not sent at all.
EMAIL_FRESH_FOR = timedelta(hours=12)


class WrongPassword(Exception):
    pass


@transaction.atomic
def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    user = User(username=username, email=email)
    password_validation.validate_password(password, user)
    user.set_password(password)
    user.full_clean()
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        # Someone took the name between the check and the write.
        taken = ValidationError("That username is taken.", code="taken")
        raise ValidationError({"username": taken}) from None
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


@transaction.atomic
def user_sign_out_everywhere(*, user: User, now: datetime | None = None) -> None:
    """Ends every device token and every browser session of the user."""
    tokens_revoke_all(user=user)
    user.sessions_ended_at = now or timezone.now()
    # An update, not save(): this runs inside the save of a new password, which would
    # otherwise report the password changed again.
    User.objects.filter(pk=user.pk).update(sessions_ended_at=user.sessions_ended_at)


def user_password_change(*, user: User, password: str) -> None:
    """Sets a new password; saving it signs the user out everywhere
    (`accounts.passwords.SignOutEverywhere`), as every other way of changing it does."""
    password_validation.validate_password(password, user)
    user.set_password(password)
    user.save(update_fields=["password"])


# Sent, inside the settings' transaction, when a learner's days move (their time zone or the
# hour a day starts): what is kept by study day is summed again (`reviews.rollups`).
study_days_moved = Signal()


@transaction.atomic
def user_update_settings(*, user: User, **changes: Any) -> User:
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValueError(f"not a setting: {', '.join(sorted(unknown))}")
    days = (user.timezone, user.day_starts_at_hour)
    for field, value in changes.items():
        setattr(user, field, value)
    user.full_clean(exclude=["password"])
    user.save(update_fields=list(changes))
    if (user.timezone, user.day_starts_at_hour) != days:
        study_days_moved.send(sender=User, user=user)
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


def notification_create(
    *,
    user_id: int,
    kind: str,
    key: str,
    title: str,
    body: str,
    data: dict[str, Any] | None = None,
    email: bool = False,
    now: datetime | None = None,
) -> tuple[Notification, bool]:
    """Writes the notification once per user and `key`; returns it and whether it is new."""
    return Notification.objects.get_or_create(
        user_id=user_id,
        key=key,
        defaults={
            "kind": kind,
            "title": title,
            "body": body,
            "data": data or {},
            "email": email,
            "created_at": now or timezone.now(),
        },
    )


def notifications_add(*, notifications: Iterable[Notification]) -> None:
    """Writes many notifications in one query; one whose (user, key) exists already is skipped."""
    Notification.objects.bulk_create(list(notifications), ignore_conflicts=True)


def notification_emails_send(*, user_ids: Sequence[int], now: datetime) -> int:
    """Sends the e-mails still owed to these users; returns how many left.

    One older than `EMAIL_FRESH_FOR` is not sent any more: its moment has passed.

    Each message is sent and marked sent in its own short transaction, holding its row, so two
    workers never send the same one and a worker stopped mid-batch leaves the rest to the next
    run. The Message-ID is fixed per notification, so the mail system can drop a resend.
    """
    pending = list(
        Notification.objects.filter(
            user_id__in=user_ids,
            email=True,
            emailed_at__isnull=True,
            created_at__gte=now - EMAIL_FRESH_FOR,
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    sent = 0
    if not pending:
        return sent
    with get_connection() as connection:
        for pk in pending:
            with transaction.atomic():
                notification = (
                    Notification.objects.select_for_update(skip_locked=True, of=("self",))
                    .select_related("user")
                    .filter(pk=pk, emailed_at__isnull=True)
                    .first()
                )
                if notification is None:  # sent meanwhile, or being sent by another worker
                    continue
                if notification.user.email:
                    _email(notification, connection)
                    sent += 1
                notification.emailed_at = timezone.now()
                notification.save(update_fields=["emailed_at"])
    return sent


def _email(notification: Notification, connection: Any) -> None:
    site = settings.SITE_URL.rstrip("/")
    footer = (
        f"\n\n-- \nResidual, {site}/\n"
        "You can change which e-mails you get, and when, in your settings."
    )
    EmailMessage(
        subject=notification.title,
        body=notification.body + footer,
        to=[notification.user.email],
        connection=connection,
        headers={"Message-ID": f"<notification-{notification.pk}@{_domain(site)}>"},
    ).send()


def _domain(site: str) -> str:
    return site.split("://", 1)[-1].split("/", 1)[0] or "residual.local"


def notifications_mark_read(*, user: User, ids: Sequence[int] | None, now: datetime) -> int:
    """Marks the user's notifications read (all unread ones when `ids` is None)."""
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    return int(unread.update(read_at=now))


def notifications_prune(*, now: datetime, batch_size: int = 5_000) -> int:
    """Deletes notifications older than `NOTIFICATION_TTL_DAYS`, a bounded batch at a time;
    returns how many."""
    cutoff = now - timedelta(days=settings.NOTIFICATION_TTL_DAYS)
    return delete_in_batches(
        Notification.objects.filter(created_at__lt=cutoff).order_by("created_at"),
        batch_size=batch_size,
    )
