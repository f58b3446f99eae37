from collections.abc import Iterator
from zoneinfo import available_timezones

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.crypto import salted_hmac

from engine.scheduling import aimed_retention


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

    # When the user's Pro ends: the latest end among their open grants (`Grant`), kept here by
    # `accounts.entitlements` in the transaction that changes a grant, so a request knows its
    # plan from the user row it already has. None: never had Pro; in the past: Pro has ended.
    pro_until = models.DateTimeField(null=True, blank=True, editable=False)
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
    # When a check last changed them: a fit kept, or the defaults back in an earlier fit's place.
    scheduler_fitted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # When the scheduler was last fitted, whether or not the fit was kept (or found too few
    # reviews to fit): the sweep hands the learner on again only when more have come since.
    scheduler_checked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The fitted parameters the learner's cards were last re-derived with (by when they were
    # fitted): behind `scheduler_fitted_at` while the re-derivation is owed.
    scheduler_rederived_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Under this many milliseconds a right answer is rated Easy: set only where the learner's
    # history shows their fast right answers are remembered better (engine.fitting).
    easy_answer_ms = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # How far above `desired_retention` the reviews the scheduler can place are aimed, so that
    # all the learner's reviews come out at the desired retention (engine.fitting.retention_raise).
    retention_raise = models.FloatField(default=0.0, editable=False)
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
                condition=models.Q(retention_raise__gte=0.0, retention_raise__lte=0.05),
                name="user_retention_raise_range",
            ),
            models.CheckConstraint(
                condition=models.Q(day_starts_at_hour__lte=23, reminder_hour__lte=23),
                name="user_hours_range",
            ),
        ]

    @property
    def scheduled_retention(self) -> float:
        """The chance of recall the scheduler aims each review it can place at: the desired
        retention, raised to make up for the reviews it cannot place."""
        return aimed_retention(self.desired_retention, self.retention_raise)

    @property
    def is_pro(self) -> bool:
        """Whether the user has Pro now (`accounts.entitlements.has_pro` is the rule)."""
        return self.pro_until is not None and self.pro_until > timezone.now()

    @property
    def plan(self) -> str:
        return self.Plan.PRO if self.is_pro else self.Plan.FREE

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
        BILLING = "billing", "Billing"

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


class Grant(models.Model):
    """One reason a user has Pro, from when until when. A user has Pro while any open grant has
    not reached its end; `User.pro_until` holds the latest such end.

    `reference` names the thing behind the grant within its source (a Stripe subscription's
    id, a licence code's id, `classroom:<id>`, a note from staff), so the source can find,
    extend and end its own grant again; at most one open grant per user, source and reference.
    """

    class Source(models.TextChoices):
        SUBSCRIPTION = "subscription", "Subscription"
        LICENCE = "licence", "Licence code"
        CLASSROOM = "classroom", "Classroom seat"
        STAFF = "staff", "Granted by staff"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="grants")
    source = models.CharField(max_length=16, choices=Source.choices)
    reference = models.CharField(max_length=80)
    starts_at = models.DateTimeField(default=timezone.now)
    # None: until it is ended (a classroom seat, staff's grant without an end).
    ends_at = models.DateTimeField(null=True, blank=True)
    # Set when the grant was ended before its end: the learner left the class, the
    # subscription was cancelled, staff revoked it. An ended grant gives nothing.
    ended_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "source", "reference"],
                condition=models.Q(ended_at__isnull=True),
                name="grant_open_once",
            ),
            models.CheckConstraint(
                condition=models.Q(ends_at__isnull=True)
                | models.Q(ends_at__gte=models.F("starts_at")),
                name="grant_ends_after_start",
            ),
        ]
        indexes = [models.Index(fields=["source", "reference"], name="grant_source_reference")]

    def __str__(self) -> str:
        return f"{self.get_source_display()} for {self.user_id}"


LICENCE_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Capitals and digits without look-alikes, as for join codes."""
LICENCE_CODE_LENGTH = 16


class LicenceBatch(models.Model):
    """Codes made at once for a school or a team: each gives `days` of Pro to the one learner
    who redeems it first, if redeemed before `expires_at`."""

    name = models.CharField(max_length=120, help_text="Who the codes are for, e.g. a school.")
    days = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(3_660)],
        help_text="Days of Pro each code gives.",
    )
    expires_at = models.DateTimeField(help_text="Codes not redeemed by then no longer work.")
    created_by = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "licence batches"

    def __str__(self) -> str:
        return self.name


class LicenceCode(models.Model):
    batch = models.ForeignKey(LicenceBatch, on_delete=models.CASCADE, related_name="codes")
    code = models.CharField(max_length=LICENCE_CODE_LENGTH, unique=True)
    # Kept when the redeemer deletes their account: a code is used once, whoever used it.
    redeemed_at = models.DateTimeField(null=True, blank=True)
    redeemed_by = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["batch", "pk"]

    def __str__(self) -> str:
        return self.grouped

    @property
    def grouped(self) -> str:
        """The code as printed for people: groups of four."""
        return "-".join(self.code[i : i + 4] for i in range(0, len(self.code), 4))


class Subscription(models.Model):
    """A Stripe subscription to Pro, as Stripe's events last described it."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="subscriptions")
    stripe_subscription_id = models.CharField(max_length=255, unique=True)
    stripe_customer_id = models.CharField(max_length=255, db_index=True)
    status = models.CharField(max_length=32)
    current_period_end = models.DateTimeField(null=True, blank=True)
    # When Stripe created the last event applied here: an older event arriving late changes
    # nothing.
    event_created_at = models.DateTimeField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.stripe_subscription_id} ({self.status})"


class BillingEvent(models.Model):
    """Every event Stripe delivered with a valid signature, once per event id, and what it did."""

    event_id = models.CharField(max_length=255, unique=True)
    type = models.CharField(max_length=100)
    created_at = models.DateTimeField(help_text="When Stripe created the event.")
    received_at = models.DateTimeField(auto_now_add=True)
    payload = models.JSONField()
    outcome = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-received_at", "-pk"]
        indexes = [models.Index(fields=["type", "received_at"], name="billing_event_type")]

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"
