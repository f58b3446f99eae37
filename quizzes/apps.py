from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from course import revisions
        from course.content import parts
        from quizzes.content import QuestionBank
        from quizzes.interview_content import InterviewBank
        from quizzes.models import Choice, InterviewCategory, InterviewEntry, Question

        parts.register("questions", QuestionBank())
        parts.register("interview", InterviewBank())
        revisions.watch(Question, Choice, InterviewCategory, InterviewEntry)
