from django.apps import AppConfig


class ClassroomsConfig(AppConfig):
    name = "classrooms"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import pre_delete

        from accounts import exports
        from classrooms import seats, selectors

        pre_delete.connect(
            seats.free_seats_of_deleted_user,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="classrooms.free_seats_of_deleted_user",
        )

        exports.register(
            "classrooms_taught", selectors.export_classrooms_taught, models=["classrooms.Classroom"]
        )
        exports.register(
            "classroom_memberships", selectors.export_memberships, models=["classrooms.Membership"]
        )
