"""The account pages' forms. Each checks what its API twin checks (the same field limits, the
look-alike username rule, the password validators) and leaves the writing to a service.

Django's text fields refuse NUL characters, and every text field here has a length limit, so
hostile input is a field error before it reaches a service or the database."""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.utils.html import format_html

from accounts import lockout, selectors, services
from accounts.models import User

PASSWORD_MAX = 128
TIMEZONE_HINT_ID = "timezone-guess"


def _password(label: str, *, autocomplete: str, help_text: str = "") -> forms.CharField:
    return forms.CharField(
        label=label,
        strip=False,
        max_length=PASSWORD_MAX,
        help_text=help_text,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
    )


def _password_rules() -> str:
    """The password validators' rules in one short sentence."""
    length = next(
        (
            validator.min_length
            for validator in password_validation.get_default_password_validators()
            if isinstance(validator, password_validation.MinimumLengthValidator)
        ),
        None,
    )
    start = f"At least {length} characters" if length else "Any length"
    return f"{start}; not a common password, not only digits, and not like your username."


# --- signing up and in ----------------------------------------------------------------------


class SignUpForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        help_text="Letters, digits and @ . + - _ only. Others see it in a class you join.",
        validators=[
            RegexValidator(r"^[\w.@+-]+\Z", "Use letters, digits and @ . + - _ only.", "invalid")
        ],
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        ),
    )
    email = forms.EmailField(
        label="E-mail (optional)",
        required=False,
        max_length=254,
        help_text="Only to reset your password and, if you want them, review reminders.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = _password("Password", autocomplete="new-password")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["password"].help_text = _password_rules()

    def clean_username(self) -> str:
        # Stored as Django stores names (NFKC), and no look-alike of an existing account.
        username = unicodedata.normalize("NFKC", self.cleaned_data["username"])
        if selectors.username_taken(username=username):
            raise ValidationError("That username is taken.", code="taken")
        return username

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        password = cleaned.get("password")
        if password:
            # Checked even when the name is refused, so every problem shows at once.
            candidate = User(username=cleaned.get("username", ""), email=cleaned.get("email") or "")
            try:
                password_validation.validate_password(password, candidate)
            except ValidationError as exc:
                self.add_error("password", exc)
        return cleaned


class SignInForm(auth_forms.AuthenticationForm):
    """Django's sign-in form, through every authentication backend (so the per-username
    lockout sees it), finding the account a look-alike spelling of its name means."""

    password = _password("Password", autocomplete="current-password")

    error_messages = {
        **auth_forms.AuthenticationForm.error_messages,
        "invalid_login": "The username and password do not match an account.",
        "locked_out": "Too many failed sign-ins for this username. Try again in %(wait)s.",
    }

    def __init__(self, request: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(request, *args, **kwargs)
        username = self.fields["username"].widget
        username.attrs.update({"autocapitalize": "none", "spellcheck": "false"})
        self.locked_out = False
        self.wait = 0

    def clean_username(self) -> str:
        return selectors.username_on_record(typed=self.cleaned_data["username"])

    def get_invalid_login_error(self) -> ValidationError:
        # The lockout backend refused the name (or this failure reached the limit).
        if self.request is not None and getattr(self.request, "axes_locked_out", False):
            self.locked_out = True
            self.wait = lockout.retry_after(
                lockout.username_of(self.request, {"username": self.cleaned_data["username"]})
            )
            return ValidationError(
                self.error_messages["locked_out"],
                code="locked_out",
                params={"wait": _duration(self.wait)},
            )
        return super().get_invalid_login_error()


def _duration(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = -(-seconds // 60)
    return f"{minutes} minutes"


# --- passwords ------------------------------------------------------------------------------


class PasswordResetForm(auth_forms.PasswordResetForm):
    email = forms.EmailField(
        label="E-mail",
        max_length=254,
        help_text="The address on your account. We send a link to choose a new password.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class _NewPasswordMixin:
    """A new password, set by the service every password change goes through, which signs the
    account out everywhere else."""

    user: User
    cleaned_data: dict[str, Any]

    def save(self, commit: bool = True) -> User:
        services.user_password_change(user=self.user, password=self.cleaned_data["new_password1"])
        return self.user


class SetPasswordForm(_NewPasswordMixin, auth_forms.SetPasswordForm):  # type: ignore[type-arg]
    new_password1 = _password("New password", autocomplete="new-password")
    new_password2 = _password("New password again", autocomplete="new-password")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["new_password1"].help_text = _password_rules()


class PasswordChangeForm(_NewPasswordMixin, auth_forms.PasswordChangeForm):
    old_password = _password("Current password", autocomplete="current-password")
    new_password1 = _password("New password", autocomplete="new-password")
    new_password2 = _password("New password again", autocomplete="new-password")

    field_order = ["old_password", "new_password1", "new_password2"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["new_password1"].help_text = _password_rules()


class DeleteAccountForm(forms.Form):
    password = _password(
        "Your password",
        autocomplete="current-password",
        help_text="To be sure it is you. Deleting cannot be undone.",
    )


# --- study settings -------------------------------------------------------------------------


@cache
def timezone_choices() -> list[tuple[str, str]]:
    zones = sorted(available_timezones() - {"localtime"})
    return [(zone, zone.replace("_", " ")) for zone in zones]


class Radios(forms.RadioSelect):
    """Radio buttons whose field, in an error summary, links to the first of them."""

    def id_for_label(self, id_: str, index: str | None = None) -> str:
        return str(super().id_for_label(id_, "0" if index is None else index))


RETENTION_RANGE = "Choose a desired retention from 0.70 to 0.99."


def _between(low: int, high: int, what: str) -> dict[str, str]:
    message = f"Choose from {low} to {high:,} {what}."
    return {"min_value": message, "max_value": message, "invalid": "Give a whole number."}


HOURS = [(hour, f"{hour:02d}:00") for hour in range(24)]
YES_NO = [("yes", "Yes, e-mail me when reviews are due"), ("no", "No e-mails")]


class SettingsForm(forms.Form):
    """The learner's study settings: the fields `PATCH /api/v1/me/` takes, with the model's
    limits."""

    email = forms.EmailField(
        label="E-mail",
        required=False,
        max_length=254,
        help_text="For password resets and review reminders. Leave empty for none.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    timezone = forms.ChoiceField(
        label="Time zone",
        choices=timezone_choices,
        help_text=format_html(
            'Your study day and reminders follow this zone. <span id="{}"></span>',
            TIMEZONE_HINT_ID,
        ),
        widget=forms.Select(attrs={"data-guess-timezone": TIMEZONE_HINT_ID}),
    )
    day_starts_at_hour = forms.TypedChoiceField(
        label="Your day starts at",
        choices=HOURS,
        coerce=int,
        help_text="Reviews done before this hour count for the day before, so a late night "
        "still counts as the same day.",
    )
    new_cards_per_day = forms.IntegerField(
        label="New cards per day",
        min_value=0,
        max_value=500,
        error_messages=_between(0, 500, "new cards a day"),
        help_text="At most this many cards you have not studied yet are added each day.",
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    reviews_per_day = forms.IntegerField(
        label="Reviews per day",
        min_value=0,
        max_value=10_000,
        error_messages=_between(0, 10_000, "reviews a day"),
        help_text="A cap on reviews a day; cards over it wait for the next day.",
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    desired_retention = forms.FloatField(
        label="Desired retention",
        validators=[
            MinValueValidator(0.7, RETENTION_RANGE),
            MaxValueValidator(0.99, RETENTION_RANGE),
        ],
        error_messages={"invalid": "Give a number such as 0.90."},
        help_text="How likely you are to remember a card when it comes back, from 0.70 to "
        "0.99. At 0.90 you will remember about 9 in 10 cards when they come back. Higher means "
        "more reviews; lower means fewer reviews and more forgetting.",
        widget=forms.NumberInput(attrs={"step": "0.01", "min": "0.70", "max": "0.99"}),
    )
    reminder_hour = forms.TypedChoiceField(
        label="Reminder time",
        choices=HOURS,
        coerce=int,
        help_text="When, in your time zone, a reminder is sent on days with reviews due.",
    )
    email_reminders = forms.TypedChoiceField(
        label="E-mail reminders",
        choices=YES_NO,
        coerce=lambda value: value == "yes",
        widget=Radios,
    )

    @classmethod
    def for_user(cls, user: User, data: Any = None) -> SettingsForm:
        initial = {field: getattr(user, field) for field in services.SETTINGS_FIELDS}
        initial["email_reminders"] = "yes" if user.email_reminders else "no"
        form = cls(data=data, initial=initial)
        if user.retention_raise > 0:
            field = form.fields["desired_retention"]
            field.help_text = (
                f"{field.help_text} To keep you there, your reviews are aimed a little higher, "
                f"at {user.scheduled_retention:.2f}: a card you missed the first time comes "
                f"back the next day already under {user.desired_retention:.2f}, and the others "
                "make up for it."
            )
        return form

    def changes(self) -> dict[str, Any]:
        return {name: self.cleaned_data[name] for name in self.changed_data}

    def add_service_errors(self, error: ValidationError) -> None:
        """A refusal from the service, on the field it names when the form has it."""
        if not hasattr(error, "error_dict"):
            self.add_error(None, error)
            return
        for field, errors in error.error_dict.items():
            self.add_error(field if field in self.fields else None, errors)


class DeviceForm(forms.Form):
    """Which device token to revoke, by its digest (never the token itself)."""

    device = forms.CharField(max_length=128)


# --- notifications --------------------------------------------------------------------------


class NotificationsReadForm(forms.Form):
    """Where to come back to after marking read: the page of the list the learner was on."""

    page = forms.IntegerField(required=False, min_value=1, max_value=100_000)
