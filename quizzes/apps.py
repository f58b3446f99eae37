from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    default_auto_field = "django.db.models.BigAutoField"
