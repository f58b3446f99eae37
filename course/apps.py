from django.apps import AppConfig


class CourseConfig(AppConfig):
    name = "course"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports
        from course import revisions, selectors
        from course.models import Course, GlossaryTerm, Lesson, Section

        revisions.watch(Course, Lesson, Section, GlossaryTerm)

        exports.register(
            "lesson_progress", selectors.export_lesson_progress, models=["course.LessonProgress"]
        )
        exports.register("reports", selectors.export_reports, models=["course.Report"])
