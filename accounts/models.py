from collections.abc import Iterator
from zoneinfo import available_timezones

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.crypto import salted_hmac


def validate_timezone(value: str) -> None:
    from django.core.exceptions import ValidationError

    if value not in available_timezones():
        raise ValidationError(
            f"'{value}' is not a known time zone; use an IANA name such as 'Europe/Berlin'.",
            code="unknown_timezone",
        )


STUDY_SETTINGS = (
    "timezone",
    "desired_retention",
    "new_cards_per_day",
    "reviews_per_day",
    "day_starts_at_hour",
    "reminder_hour",
    "email_reminders",
)
"""The settings a learner changes for themselves (`PATCH /api/v1/me/`)."""


class User(AbstractUser):
    """A learner (and, when they create a classroom, a teacher) with their study settings."""

    class Plan(models.TextChoices):
        FREE = "free", "Free"
        PRO = "pro", "Pro"

    plan = models.CharField(max_length=8, choices=Plan.choices, default=Plan.FREE)
    timezone = models.CharField(max_length=64, default="UTC", validators=[validate_timezone])
    desired_retention = models.FloatField(
        default=0.9, validators=[MinValueValidator(0.7), MaxValueValidator(0.99)]
    )
    new_cards_per_day = models.PositiveSmallIntegerField(
        default=20, validators=[MaxValueValidator(500)]
    )
    reviews_per_day = models.PositiveIntegerField(
        default=200, validators=[MaxValueValidator(10_000)]
    )
    day_starts_at_hour = models.PositiveSmallIntegerField(
        default=4, validators=[MaxValueValidator(23)]
    )
    reminder_hour = models.PositiveSmallIntegerField(default=18, validators=[MaxValueValidator(23)])
    email_reminders = models.BooleanField(default=True)
    # FSRS parameters fitted to this learner's own reviews; None means the defaults.
    scheduler_parameters = models.JSONField(null=True, blank=True, editable=False)
    scheduler_fitted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # When the scheduler was last fitted, whether or not the fit was kept.
    scheduler_checked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The learner's local date of their last due-review reminder: at most one a day.
    reminded_on = models.DateField(null=True, blank=True, editable=False)
    # When the user was last signed out everywhere (sign-out of every device, or a new
    # password): browser sessions signed in before then no longer work.
    sessions_ended_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(desired_retention__gte=0.7, desired_retention__lte=0.99),
                name="user_desired_retention_range",
            ),
            models.CheckConstraint(
                condition=models.Q(day_starts_at_hour__lte=23, reminder_hour__lte=23),
                name="user_hours_range",
            ),
        ]

    @property
    def is_pro(self) -> bool:
        return self.plan == self.Plan.PRO

    # A session carries this hash and is refused once it stops matching. Django's hashes the
    # password alone; adding when the user was signed out everywhere ends every session at
    # once, without finding them. Users never signed out everywhere keep Django's hash.
    def get_session_auth_hash(self) -> str:
        return self._session_hash(settings.SECRET_KEY)

    def get_session_auth_fallback_hash(self) -> Iterator[str]:
        for secret in settings.SECRET_KEY_FALLBACKS:
            yield self._session_hash(secret)

    def _session_hash(self, secret: str | bytes) -> str:
        ended = self.sessions_ended_at.isoformat() if self.sessions_ended_at else ""
        return salted_hmac(
            "django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash",
            self.password + ended,
            secret=secret,
            algorithm="sha256",
        ).hexdigest()


class Notification(models.Model):
    """Something the service tells a learner: shown in the app, and e-mailed when `email` is set.

    `key` names the event (a reminder's local date, a leech's card and lapse count), unique per
    user, so a task that runs twice writes one notification. `emailed_at` is set right after
    the e-mail leaves, one message at a time, so an interrupted send resumes where it stopped.
    """

    class Kind(models.TextChoices):
        REMINDER = "reminder", "Reviews due"
        LEECH = "leech", "Leech"
        DIGEST = "digest", "Weekly class digest"
        EXPORT = "export", "Export ready"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(max_length=80)
    title = models.CharField(max_length=200)
    body = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    email = models.BooleanField(default=False, help_text="Also sent by e-mail.")
    emailed_at = models.DateTimeField(null=True, blank=True)
    read_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="notification_once_per_key")
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_user_recent"),
            models.Index(fields=["created_at"], name="notification_created"),  # pruning
            # The e-mails still to send: a small, partial index.
            models.Index(
                fields=["created_at"],
                condition=models.Q(email=True, emailed_at__isnull=True),
                name="notification_email_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}: {self.title}"
