from django.urls import path

from accounts.api import views

urlpatterns = [
    path("auth/register/", views.RegisterView.as_view(), name="auth-register"),
    path("auth/login/", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all/", views.LogoutAllView.as_view(), name="auth-logout-all"),
    path("auth/csrf/", views.CsrfView.as_view(), name="auth-csrf"),
    path("me/", views.MeView.as_view(), name="me"),
    path("me/export/", views.ExportView.as_view(), name="me-export"),
    path("me/export/files/<str:token>/", views.ExportFileView.as_view(), name="export-file"),
    path("notifications/", views.NotificationListView.as_view(), name="notifications"),
    path("notifications/read/", views.NotificationsReadView.as_view(), name="notifications-read"),
]
