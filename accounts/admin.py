from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import STUDY_SETTINGS, User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "email", "plan", "timezone", "date_joined", "is_staff")
    list_filter = ("plan", "is_staff", "is_active")
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (
            "Study",
            {"fields": ("plan", *STUDY_SETTINGS)},
        ),
    )
