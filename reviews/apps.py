from typing import Any

from django.apps import AppConfig


def _many_answers(user: Any) -> bool:
    from django.conf import settings

    from reviews.models import Answer

    limit = settings.EXPORT_IN_BACKGROUND_ANSWERS
    return Answer.objects.filter(user=user).order_by()[limit : limit + 1].exists()


def _days_moved(sender: Any, *, user: Any, **kwargs: Any) -> None:
    from reviews.rollups import rebuild

    rebuild(user=user)


class ReviewsConfig(AppConfig):
    name = "reviews"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports
        from accounts.services import study_days_moved
        from course.web.extras import register_section_extra

        # The code queue's and the fitting's tasks, kept out of reviews.tasks, register when
        # imported.
        from reviews import (
            code_tasks,  # noqa: F401
            fitting_tasks,  # noqa: F401
            selectors,
        )
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
        exports.register(
            "code_submissions",
            selectors.export_code_submissions,
            models=["reviews.CodeSubmission"],
        )
        exports.register(
            "mock_interviews",
            selectors.export_mock_interviews,
            models=["reviews.MockInterview", "reviews.MockQuestion"],
        )
        for label in ("reviews.StudyDay", "reviews.StudyTotal"):
            exports.register_derived(
                label,
                reason="Sums of the answers (exported) by course and study day, rebuilt from them.",
            )
        exports.register_derived(
            "reviews.DueSlot",
            reason="Counts of the cards (exported) due in each quarter hour, counted again from "
            "them.",
        )
        exports.register_large(_many_answers)
        # A learner whose days move has their study days summed again.
        study_days_moved.connect(_days_moved, dispatch_uid="reviews.rollups")
        # A lesson page shows each section's check questions after it.
        register_section_extra(section_checks)
