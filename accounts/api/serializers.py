import unicodedata
from datetime import datetime
from typing import Any, Literal

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from rest_framework import serializers

from accounts import entitlements, selectors
from accounts.models import STUDY_SETTINGS, Notification, User
from config.fields import StrictBooleanField, StrictFloatField, StrictIntegerField


class UserSerializer(serializers.ModelSerializer[User]):
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.BooleanField: StrictBooleanField,
        models.FloatField: StrictFloatField,
        models.PositiveIntegerField: StrictIntegerField,
        models.PositiveSmallIntegerField: StrictIntegerField,
    }

    plan = serializers.SerializerMethodField(
        help_text="`pro` while the caller has Pro, else `free`."
    )
    pro_until = serializers.SerializerMethodField(
        help_text="When the caller's Pro ends; null on the free plan. "
        "9999-12-31T00:00:00Z means no end is set (a classroom seat, a grant from staff)."
    )

    scheduled_retention = serializers.FloatField(
        read_only=True,
        help_text="The chance of recall the scheduler aims the reviews it can place at: "
        "`desired_retention`, raised a little to make up for the reviews no schedule can place "
        "(a card weaker than a day comes back the next day, already under it), so that the "
        "caller's reviews, all together, are passed at `desired_retention`.",
    )

    class Meta:
        model = User
        fields = (
            "id",
            "username",
            "email",
            "plan",
            "pro_until",
            *STUDY_SETTINGS,
            "scheduled_retention",
            "date_joined",
        )
        read_only_fields = ("id", "username", "plan", "pro_until", "date_joined")
        extra_kwargs = {
            "timezone": {"help_text": "An IANA time zone name, e.g. 'Europe/Berlin'."},
            "desired_retention": {
                "help_text": "The share of reviews the caller should pass, 0.70 to 0.99: "
                "see `scheduled_retention`."
            },
            "day_starts_at_hour": {"help_text": "The local hour a new study day starts (0-23)."},
            "reminder_hour": {"help_text": "The local hour for due-review reminders (0-23)."},
        }

    def get_plan(self, user: User) -> Literal["free", "pro"]:
        return "pro" if entitlements.has_pro(user) else "free"

    def get_pro_until(self, user: User) -> datetime | None:
        return entitlements.pro_until(user)


class UsernameField(serializers.RegexField):
    """A new username, checked as it will be stored: NFKC-normalized, as Django stores them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            r"^[\w.@+-]+\Z",
            max_length=150,
            error_messages={"invalid": "Use letters, digits and @ . + - _ only."},
            **kwargs,
        )

    def to_internal_value(self, data: Any) -> str:
        return unicodedata.normalize("NFKC", super().to_internal_value(data))


class RegisterSerializer(serializers.Serializer[None]):
    username = UsernameField()
    password = serializers.CharField(max_length=128, write_only=True, trim_whitespace=False)
    email = serializers.EmailField(required=False, allow_blank=True, max_length=254)

    def validate_username(self, value: str) -> str:
        # One name, however it is spelled: no look-alike of an existing account.
        if selectors.username_taken(username=value):
            raise serializers.ValidationError("That username is taken.", code="taken")
        return value

    def validate(self, attrs: dict[str, str]) -> dict[str, str]:
        candidate = User(username=attrs["username"], email=attrs.get("email", ""))
        try:
            password_validation.validate_password(attrs["password"], candidate)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": list(exc.messages)}) from exc
        return attrs


class RegisterResponseSerializer(serializers.Serializer[None]):
    user = UserSerializer()
    token = serializers.CharField()


class LoginSerializer(serializers.Serializer[None]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)
    session = StrictBooleanField(
        default=False,
        help_text="Also start a browser session (cookie + CSRF) for the web app.",
    )


class LoginResponseSerializer(serializers.Serializer[None]):
    token = serializers.CharField()
    expiry = serializers.DateTimeField(allow_null=True)
    user = UserSerializer()


class PasswordSerializer(serializers.Serializer[None]):
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class NotificationSerializer(serializers.ModelSerializer[Notification]):
    class Meta:
        model = Notification
        fields = ("id", "kind", "title", "body", "data", "created_at", "read_at")
        read_only_fields = fields


class NotificationsReadSerializer(serializers.Serializer[None]):
    ids = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        max_length=500,
        help_text="The notifications to mark read; leave out to mark every unread one.",
    )


class NotificationsReadResponseSerializer(serializers.Serializer[None]):
    marked = serializers.IntegerField(help_text="How many were unread and are now read.")
