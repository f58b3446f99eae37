from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports
        from course.content import parts
        from quizzes import selectors
        from quizzes.content import QuestionBank

        parts.register("questions", QuestionBank())
        exports.register("answers", selectors.export_answers)
        exports.register("cards", selectors.export_cards)
