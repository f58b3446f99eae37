from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm

from accounts import services
from accounts.models import STUDY_SETTINGS, Notification, User


class PasswordChangeForm(AdminPasswordChangeForm):
    """A new password signs the user out everywhere by itself (`accounts.passwords`); turning
    password sign-in off sets no password, so it does it here."""

    def save(self, commit: bool = True) -> Any:
        user = super().save(commit=commit)
        if commit and not user.has_usable_password():
            services.user_sign_out_everywhere(user=user)
        return user


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    change_password_form = PasswordChangeForm
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
