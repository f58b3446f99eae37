from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import STUDY_SETTINGS, Notification, User


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


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "title", "created_at", "emailed_at", "read_at")
    list_filter = ("kind", "email")
    search_fields = ("user__username", "title")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    date_hierarchy = "created_at"
    readonly_fields = ("created_at", "emailed_at")
