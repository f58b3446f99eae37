from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports, selectors

        exports.register("profile", selectors.export_profile, models=["accounts.User"])
        exports.register(
            "pro",
            selectors.export_pro,
            models=["accounts.Grant", "accounts.Subscription", "accounts.LicenceCode"],
        )
        exports.register_derived(
            "accounts.LicenceBatch",
            reason="Who on the staff made a batch of licence codes: a record of staff work for "
            "schools, not the staff member's own learning (codes they redeemed are exported).",
        )
        exports.register("tokens", selectors.export_tokens, models=["knox.AuthToken"])
        exports.register(
            "notifications", selectors.export_notifications, models=["accounts.Notification"]
        )
