import csv
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts import entitlements, licences, services
from accounts.models import (
    STUDY_SETTINGS,
    BillingEvent,
    Grant,
    LicenceBatch,
    LicenceCode,
    Notification,
    Subscription,
    User,
)


class PasswordChangeForm(AdminPasswordChangeForm):
    """A new password signs the user out everywhere by itself (`accounts.passwords`); turning
    password sign-in off sets no password, so it does it here."""

    def save(self, commit: bool = True) -> Any:
        user = super().save(commit=commit)
        if commit and not user.has_usable_password():
            services.user_sign_out_everywhere(user=user)
        return user


class GrantInline(admin.TabularInline):
    """A user's grants, to read; staff give and end Pro under Grants."""

    model = Grant
    extra = 0
    can_delete = False
    fields = ("source", "reference", "starts_at", "ends_at", "ended_at", "note")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ProFilter(admin.SimpleListFilter):
    title = "plan"
    parameter_name = "plan"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("pro", "Pro now"), ("free", "Free")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        now = timezone.now()
        if self.value() == "pro":
            return queryset.filter(pro_until__gt=now)
        if self.value() == "free":
            return queryset.filter(Q(pro_until__isnull=True) | Q(pro_until__lte=now))
        return queryset


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    change_password_form = PasswordChangeForm
    list_display = ("username", "email", "plan", "pro_until", "timezone", "date_joined")
    list_filter = (ProFilter, "is_staff", "is_active")
    readonly_fields = ("pro_until",)
    inlines = [GrantInline]
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        ("Study", {"fields": ("pro_until", *STUDY_SETTINGS)}),
    )


class StaffGrantForm(forms.ModelForm):
    class Meta:
        model = Grant
        fields = ("user", "ends_at", "note")
        help_texts = {"ends_at": "Leave empty for Pro until a member of staff ends it."}

    def clean_ends_at(self) -> Any:
        ends_at = self.cleaned_data.get("ends_at")
        if ends_at is not None and ends_at <= timezone.now():
            raise forms.ValidationError("The end must be in the future.")
        return ends_at


@admin.register(Grant)
class GrantAdmin(admin.ModelAdmin):
    """Every grant of Pro. Staff add one here (source: staff) and end any with the action;
    the other sources manage their own."""

    list_display = ("user", "source", "reference", "starts_at", "ends_at", "ended_at")
    list_filter = ("source",)
    search_fields = ("user__username", "reference")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    actions = ["end_grants"]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = StaffGrantForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        return ("user", "source", "reference", "starts_at", "ends_at", "ended_at", "note")

    def save_model(self, request: HttpRequest, obj: Grant, form: Any, change: bool) -> None:
        if change:
            return
        granted = entitlements.grant_add(
            user_id=obj.user_id,
            source=Grant.Source.STAFF,
            reference=f"staff:{request.user.pk}:{timezone.now():%Y%m%dT%H%M%S.%f}",
            ends_at=obj.ends_at,
            note=obj.note,
        )
        obj.pk = granted.pk

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # ended, never deleted: the record says who had Pro and why

    @admin.action(description="End the selected grants now")
    def end_grants(self, request: HttpRequest, queryset: QuerySet[Grant]) -> None:
        ended = 0
        for grant in queryset.filter(ended_at__isnull=True):
            ended += entitlements.grant_end(
                user_id=grant.user_id, source=grant.source, reference=grant.reference
            )
        self.message_user(request, f"Ended {ended} grant(s).", messages.SUCCESS)


class LicenceBatchForm(forms.ModelForm):
    count = forms.IntegerField(
        min_value=1, max_value=licences.MAX_BATCH, help_text="How many codes to make."
    )

    class Meta:
        model = LicenceBatch
        fields = ("name", "days", "expires_at")

    def clean_expires_at(self) -> Any:
        expires_at = self.cleaned_data.get("expires_at")
        if expires_at is not None and expires_at <= timezone.now():
            raise forms.ValidationError(
                "Codes must stay redeemable for a while: pick a later time."
            )
        return expires_at


class LicenceCodeInline(admin.TabularInline):
    model = LicenceCode
    extra = 0
    can_delete = False
    fields = ("code", "redeemed_at", "redeemed_by")
    readonly_fields = fields
    max_num = 0

    def get_queryset(self, request: HttpRequest) -> QuerySet[LicenceCode]:
        return super().get_queryset(request).select_related("redeemed_by")


@admin.register(LicenceBatch)
class LicenceBatchAdmin(admin.ModelAdmin):
    list_display = ("name", "days", "expires_at", "code_count", "redeemed_count", "created_at")
    search_fields = ("name",)
    actions = ["download_codes"]
    inlines = [LicenceCodeInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[LicenceBatch]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                code_total=Count("codes"),
                redeemed_total=Count("codes", filter=Q(codes__redeemed_at__isnull=False)),
            )
        )

    @admin.display(description="codes", ordering="code_total")
    def code_count(self, batch: Any) -> int:
        return int(batch.code_total)

    @admin.display(description="redeemed", ordering="redeemed_total")
    def redeemed_count(self, batch: Any) -> int:
        return int(batch.redeemed_total)

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = LicenceBatchForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # Codes handed out already say what they give: a batch's terms do not change after.
        return ("days", "created_by", "created_at") if obj is not None else ()

    def save_model(self, request: HttpRequest, obj: LicenceBatch, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        batch = licences.batch_create(
            name=obj.name,
            days=obj.days,
            expires_at=obj.expires_at,
            count=form.cleaned_data["count"],
            created_by=request.user if isinstance(request.user, User) else None,
        )
        obj.pk = batch.pk
        obj.created_at = batch.created_at

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Download the selected batches' codes (CSV)")
    def download_codes(
        self, request: HttpRequest, queryset: QuerySet[LicenceBatch]
    ) -> HttpResponse:
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="licence-codes.csv"'
        writer = csv.writer(response)
        writer.writerow(["batch", "code", "days", "redeem_by", "redeemed_at"])
        codes = LicenceCode.objects.filter(batch__in=queryset).select_related("batch")
        for code in codes.order_by("batch_id", "pk"):
            writer.writerow(
                [
                    code.batch.name,
                    code.grouped,
                    code.batch.days,
                    code.batch.expires_at.isoformat(),
                    code.redeemed_at.isoformat() if code.redeemed_at else "",
                ]
            )
        return response


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    list_display = ("user", "stripe_subscription_id", "status", "current_period_end", "updated_at")
    list_filter = ("status",)
    search_fields = ("user__username", "stripe_subscription_id", "stripe_customer_id")
    list_select_related = ("user",)
    raw_id_fields = ("user",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # Stripe's events are the only writer


@admin.register(BillingEvent)
class BillingEventAdmin(admin.ModelAdmin):
    list_display = ("event_id", "type", "created_at", "received_at", "outcome")
    list_filter = ("type",)
    search_fields = ("event_id",)
    date_hierarchy = "received_at"

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "title", "created_at", "emailed_at", "read_at")
    list_filter = ("kind", "email")
    search_fields = ("user__username", "title")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    date_hierarchy = "created_at"
    readonly_fields = ("created_at", "emailed_at")
