from django.urls import path

from accounts.api import billing, views

urlpatterns = [
    path("auth/register/", views.RegisterView.as_view(), name="auth-register"),
    path("auth/login/", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all/", views.LogoutAllView.as_view(), name="auth-logout-all"),
    path("auth/csrf/", views.CsrfView.as_view(), name="auth-csrf"),
    path("me/", views.MeView.as_view(), name="me"),
    path("me/export/", views.ExportView.as_view(), name="me-export"),
    path("me/export/files/<str:token>/", views.ExportFileView.as_view(), name="export-file"),
    path("licences/redeem/", billing.RedeemView.as_view(), name="licence-redeem"),
    path("billing/checkout/", billing.CheckoutView.as_view(), name="billing-checkout"),
    path("billing/portal/", billing.PortalView.as_view(), name="billing-portal"),
    path("billing/webhook/", billing.WebhookView.as_view(), name="billing-webhook"),
    path("notifications/", views.NotificationListView.as_view(), name="notifications"),
    path("notifications/read/", views.NotificationsReadView.as_view(), name="notifications-read"),
]
