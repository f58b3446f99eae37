from django.contrib.auth import views as auth_views
from django.urls import path

from accounts.web import views

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("password-reset/sent/", views.PasswordResetSentView.as_view(), name="password_reset_sent"),
    path("password-reset/done/", views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("settings/", views.settings_page, name="settings"),
    path("settings/password/", views.password_change, name="password_change"),
    path("settings/sign-out-everywhere/", views.sign_out_everywhere, name="sign_out_everywhere"),
    path("settings/devices/", views.devices, name="devices"),
    path("settings/devices/revoke/", views.device_revoke, name="device_revoke"),
    path("settings/export/", views.export, name="export"),
    path("settings/delete/", views.delete, name="delete"),
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/read/", views.notifications_read, name="notifications_read"),
    path("notifications/<int:pk>/read/", views.notification_read, name="notification_read"),
]
