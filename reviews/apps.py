from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports
        from reviews import selectors

        exports.register("answers", selectors.export_answers)
        exports.register("cards", selectors.export_cards)
        exports.register("reveals", selectors.export_reveals)
