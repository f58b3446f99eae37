from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from classrooms import seats
from classrooms.models import Assignment, Classroom, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)
    readonly_fields = ("joined_at",)


class AssignmentInline(admin.TabularInline):
    model = Assignment
    extra = 0
    fields = ("title", "lesson", "question_ids", "due_at")
    raw_id_fields = ("lesson",)


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ("name", "course", "teacher", "pro_seats", "archived_at", "created_at")
    list_filter = ("course",)
    search_fields = ("name", "teacher__username")
    raw_id_fields = ("teacher",)
    readonly_fields = ("join_code", "created_at")
    inlines = [MembershipInline, AssignmentInline]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        # Seats follow the seat count and the members, however either was changed here.
        super().save_related(request, form, formsets, change)
        seats.seats_sync(classroom_id=form.instance.pk)

    def delete_model(self, request: HttpRequest, obj: Classroom) -> None:
        pk = obj.pk
        super().delete_model(request, obj)
        seats.seats_sync(classroom_id=pk)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Classroom]) -> None:
        pks = list(queryset.values_list("pk", flat=True))
        super().delete_queryset(request, queryset)
        for pk in pks:
            seats.seats_sync(classroom_id=pk)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "classroom", "joined_at")
    search_fields = ("user__username", "classroom__name")
    raw_id_fields = ("user", "classroom")
    list_select_related = ("user", "classroom")

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        old = Membership.objects.filter(pk=obj.pk).values_list("classroom_id", flat=True).first()
        super().save_model(request, obj, form, change)
        for pk in {old, obj.classroom_id} - {None}:
            seats.seats_sync(classroom_id=pk)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        super().delete_model(request, obj)
        seats.seats_sync(classroom_id=obj.classroom_id)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        pks = set(queryset.values_list("classroom_id", flat=True))
        super().delete_queryset(request, queryset)
        for pk in pks:
            seats.seats_sync(classroom_id=pk)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("title", "classroom", "lesson", "due_at")
    list_filter = ("classroom__course",)
    search_fields = ("title", "classroom__name")
    raw_id_fields = ("classroom", "lesson")
    list_select_related = ("classroom", "lesson")
