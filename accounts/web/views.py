"""The account pages: signing up, in and out, a forgotten password, the learner's settings,
devices, export, deleting the account, and notifications.

Each write goes through the service its API twin calls (`accounts.services`), and each form
posts and then redirects (303) to a page, so every journey works without JavaScript."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse, reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import export_files, exports, selectors, services, tasks
from accounts.web import forms
from config import background
from config.throttles import throttle_page

NOTIFICATIONS_PER_PAGE = 20
# The web signs in with a session; signing up does not leave a device token behind.
SESSION_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


class SeeOther:
    """A class-based form view whose success answers 303 See Other."""

    def form_valid(self, form: Any) -> HttpResponse:
        response: HttpResponse = super().form_valid(form)  # type: ignore[misc]
        if response.status_code == 302:
            response.status_code = 303
        return response


def _next(request: HttpRequest) -> str:
    """Where to go after signing up, when the link asked and it is on this site."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if safe else ""


def _next_or_home(request: HttpRequest) -> str:
    return _next(request) or reverse(settings.LOGIN_REDIRECT_URL)


# --- signing up, in and out -----------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return _see_other(_next_or_home(request))
    form = forms.SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        throttle_page(request, "register")
        if form.is_valid():
            try:
                user, _ = services.user_register(
                    username=form.cleaned_data["username"],
                    password=form.cleaned_data["password"],
                    email=form.cleaned_data["email"],
                )
            except ValidationError as exc:  # the name was taken meanwhile
                form.add_error(None, exc)
            else:
                services.tokens_revoke_all(user=user)
                login(request, user, backend=SESSION_BACKEND)
                messages.success(request, f"Welcome to Residual, {user.username}.")
                return _see_other(_next_or_home(request))
    return render(request, "accounts/signup.html", {"form": form, "next": _next(request)})


class SignInView(SeeOther, auth_views.LoginView):
    """Django's sign-in through every authentication backend, so the per-username lockout
    (django-axes) counts and refuses web sign-ins as it does the API's."""

    form_class = forms.SignInForm
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        throttle_page(request, "login")
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: forms.SignInForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_invalid(form)
        if form.locked_out:
            # This page says so itself, in the site's layout; the lockout middleware would
            # otherwise swap it for its plain-text answer.
            self.request.axes_locked_out = False  # type: ignore[attr-defined]
            response.status_code = 429
            response["Retry-After"] = str(form.wait)
        return response


# --- a forgotten password -------------------------------------------------------------------


class PasswordResetView(SeeOther, auth_views.PasswordResetView):
    form_class = forms.PasswordResetForm
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/email/password_reset.txt"
    subject_template_name = "accounts/email/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_sent")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Each one sends an e-mail: counted like sign-ups, per address.
        throttle_page(request, "register")
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        # The link in the e-mail points at the site's public address, not at the Host header.
        self.extra_email_context = {"site_url": settings.SITE_URL.rstrip("/")}
        return super().form_valid(form)


class PasswordResetSentView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_sent.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        days = max(settings.PASSWORD_RESET_TIMEOUT // 86_400, 1)
        return {**super().get_context_data(**kwargs), "timeout_days": days}


class PasswordResetConfirmView(SeeOther, auth_views.PasswordResetConfirmView):
    """The link from the e-mail: a new password, set through the service every password change
    uses, which signs the account out everywhere."""

    form_class = forms.SetPasswordForm
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_done")


class PasswordResetDoneView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_done.html"


# --- settings -------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = forms.SettingsForm.for_user(user, request.POST if request.method == "POST" else None)  # type: ignore[arg-type]
    if request.method == "POST" and form.is_valid():
        changes = form.changes()
        try:
            if changes:
                services.user_update_settings(user=user, **changes)  # type: ignore[arg-type]
        except ValidationError as exc:
            user.refresh_from_db()  # type: ignore[union-attr]
            form.add_service_errors(exc)
        else:
            messages.success(request, "Your settings are saved.")
            return _see_other(reverse("accounts:settings"))
    return render(request, "accounts/settings.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def password_change(request: HttpRequest) -> HttpResponse:
    form = forms.PasswordChangeForm(
        user=request.user, data=request.POST if request.method == "POST" else None
    )
    if request.method == "POST":
        throttle_page(request, "login")  # it checks the current password
        if form.is_valid():
            user = form.save()
            update_session_auth_hash(request, user)  # this browser stays signed in
            messages.success(
                request, "Your password is changed. Every other device and browser is signed out."
            )
            return _see_other(reverse("accounts:settings"))
    return render(request, "accounts/password_change.html", {"form": form})


@login_required
@require_POST
def sign_out_everywhere(request: HttpRequest) -> HttpResponse:
    services.user_sign_out_everywhere(user=request.user)  # type: ignore[arg-type]
    logout(request)
    messages.success(request, "You are signed out on every device and browser.")
    return _see_other(reverse("accounts:login"))


@login_required
@require_http_methods(["GET"])
def devices(request: HttpRequest) -> HttpResponse:
    tokens = selectors.devices_of(user=request.user)  # type: ignore[arg-type]
    return render(request, "accounts/devices.html", {"devices": tokens, "now": timezone.now()})


@login_required
@require_POST
def device_revoke(request: HttpRequest) -> HttpResponse:
    form = forms.DeviceForm(request.POST)
    if not form.is_valid():
        raise Http404("No such device.")
    token = get_object_or_404(
        selectors.devices_of(user=request.user),  # type: ignore[arg-type]
        digest=form.cleaned_data["device"],
    )
    services.token_revoke(token=token)
    messages.success(request, "That device is signed out.")
    return _see_other(reverse("accounts:devices"))


@login_required
@require_http_methods(["GET", "POST"])
def export(request: HttpRequest) -> HttpResponse:
    user = request.user
    large = exports.is_large(user)  # type: ignore[arg-type]
    if request.method == "GET":
        return render(request, "accounts/export.html", {"large": large})
    if not large:
        # The same document as GET /api/v1/me/export/, streamed as it is read.
        return export_files.streamed(user)  # type: ignore[arg-type]
    started = export_files.request_preparation(
        user,  # type: ignore[arg-type]
        send=lambda pk: background.send(tasks.export_prepare, pk),
    )
    messages.success(
        request,
        "Your file is being prepared. A notification will bring a link to download it."
        if started
        else "Your file is already being prepared. A notification will bring a link to it.",
    )
    return _see_other(reverse("accounts:export"))


@login_required
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest) -> HttpResponse:
    form = forms.DeleteAccountForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        throttle_page(request, "login")  # it checks the password
        if form.is_valid():
            try:
                services.user_delete(
                    user=request.user,  # type: ignore[arg-type]
                    password=form.cleaned_data["password"],
                )
            except services.WrongPassword:
                form.add_error(
                    "password", "The password is not right; the account was not deleted."
                )
            else:
                logout(request)
                messages.success(request, "Your account and everything in it are deleted.")
                return _see_other(reverse("web:home"))
    return render(request, "accounts/delete.html", {"form": form})


# --- notifications --------------------------------------------------------------------------


@login_required
@require_http_methods(["GET"])
def notifications(request: HttpRequest) -> HttpResponse:
    everything = selectors.notifications_of(user=request.user)  # type: ignore[arg-type]
    page = Paginator(everything, NOTIFICATIONS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "accounts/notifications.html", {"page": page})


def _back_to_list(request: HttpRequest) -> HttpResponseRedirect:
    form = forms.NotificationsReadForm(request.POST)
    url = reverse("accounts:notifications")
    page = form.cleaned_data.get("page") if form.is_valid() else None
    return _see_other(f"{url}?{urlencode({'page': page})}" if page and page > 1 else url)


@login_required
@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    marked = services.notifications_mark_read(
        user=request.user,  # type: ignore[arg-type]
        ids=None,
        now=timezone.now(),
    )
    if marked:
        messages.success(request, f"{marked} notification{'s' if marked != 1 else ''} marked read.")
    return _back_to_list(request)


@login_required
@require_POST
def notification_read(request: HttpRequest, pk: int) -> HttpResponse:
    notification = get_object_or_404(
        selectors.notifications_of(user=request.user),  # type: ignore[arg-type]
        pk=pk,
    )
    services.notifications_mark_read(
        user=request.user,  # type: ignore[arg-type]
        ids=[notification.pk],
        now=timezone.now(),
    )
    return _back_to_list(request)
