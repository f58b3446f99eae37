from typing import Any

from django.contrib import admin

from course import markdown
from course.models import (
    Assignment,
    Classroom,
    Course,
    GlossaryTerm,
    Lesson,
    LessonProgress,
    Membership,
    Report,
    Section,
)


def save_rendered(formset: Any, *, source: str, target: str) -> None:
    """Saves an inline formset, rendering each row's Markdown to its sanitized HTML."""
    rows = formset.save(commit=False)
    for deleted in formset.deleted_objects:
        deleted.delete()
    for row in rows:
        setattr(row, target, markdown.render(getattr(row, source)))
        row.save()
    formset.save_m2m()


class SectionInline(admin.StackedInline):
    model = Section
    extra = 0
    fields = ("position", "slug", "title", "access", "body_markdown", "archived_at")


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "archived_at")
    search_fields = ("title", "slug")


@admin.register(Lesson)
class LessonAdmin(admin.ModelAdmin):
    list_display = ("number", "title", "course", "access", "minutes", "archived_at")
    list_filter = ("course", "access")
    search_fields = ("title", "slug")
    filter_horizontal = ("prerequisites",)
    inlines = [SectionInline]

    def save_formset(self, request, form, formset, change):  # type: ignore[no-untyped-def]
        save_rendered(formset, source="body_markdown", target="body_html")


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(admin.ModelAdmin):
    list_display = ("term", "course", "lesson", "archived_at")
    list_filter = ("course",)
    search_fields = ("term", "definition_markdown")
    exclude = ("definition_html",)

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        obj.definition_html = markdown.render(obj.definition_markdown)
        super().save_model(request, obj, form, change)


@admin.register(LessonProgress)
class LessonProgressAdmin(admin.ModelAdmin):
    list_display = ("user", "lesson", "started_at", "completed_at")
    raw_id_fields = ("user", "lesson")


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "user", "lesson", "question_id", "status")
    list_filter = ("status",)
    raw_id_fields = ("user", "lesson")


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
    list_display = ("name", "course", "teacher", "created_at")
    list_filter = ("course",)
    search_fields = ("name", "teacher__username")
    raw_id_fields = ("teacher",)
    readonly_fields = ("join_code", "created_at")
    inlines = [MembershipInline, AssignmentInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "classroom", "joined_at")
    search_fields = ("user__username", "classroom__name")
    raw_id_fields = ("user", "classroom")
    list_select_related = ("user", "classroom")


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("title", "classroom", "lesson", "due_at")
    list_filter = ("classroom__course",)
    search_fields = ("title", "classroom__name")
    raw_id_fields = ("classroom", "lesson")
    list_select_related = ("classroom", "lesson")
