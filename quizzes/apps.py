from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from course import revisions
        from course.content import parts
        from quizzes.content import QuestionBank
        from quizzes.models import Choice, Question

        parts.register("questions", QuestionBank())
        revisions.watch(Question, Choice)
