"""A new password ends every session and token of its user, however it was set."""

from typing import Any


class SignOutEverywhere:
    """Listed with the password validators but checks nothing: Django tells each of them when
    a user's new password has been saved (`password_changed`), whether it came from the
    admin's forms, the `changepassword` command or `services.user_password_change`. That
    makes this the one place that sees every password change."""

    def validate(self, password: str, user: Any = None) -> None:
        return None

    def password_changed(self, password: str, user: Any = None) -> None:
        from accounts import services

        if user is not None and user.pk is not None:
            services.user_sign_out_everywhere(user=user)

    def get_help_text(self) -> str:
        return "A new password signs the account out on every device."
