from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports
        from course.web.extras import register_section_extra
        from reviews import selectors
        from reviews.web.checks import section_checks

        exports.register("answers", selectors.export_answers, models=["reviews.Answer"])
        exports.register("cards", selectors.export_cards, models=["reviews.Card"])
        exports.register("deck", selectors.export_deck, models=["reviews.Deck"])
        exports.register(
            "stored_responses",
            selectors.export_stored_responses,
            models=["reviews.IdempotencyRecord"],
        )
        exports.register("reveals", selectors.export_reveals, models=["reviews.Reveal"])
        # A lesson page shows each section's check questions after it.
        register_section_extra(section_checks)
