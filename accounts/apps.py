from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports, selectors

        exports.register("profile", selectors.export_profile, models=["accounts.User"])
        exports.register("tokens", selectors.export_tokens, models=["knox.AuthToken"])
        exports.register(
            "notifications", selectors.export_notifications, models=["accounts.Notification"]
        )
