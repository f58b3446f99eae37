from django.apps import AppConfig


class ClassroomsConfig(AppConfig):
    name = "classrooms"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import exports
        from classrooms import selectors

        exports.register(
            "classrooms_taught", selectors.export_classrooms_taught, models=["classrooms.Classroom"]
        )
        exports.register(
            "classroom_memberships", selectors.export_memberships, models=["classrooms.Membership"]
        )
