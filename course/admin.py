from typing import Any

from django.contrib import admin

from course import markdown
from course.models import Course, GlossaryTerm, Lesson, LessonProgress, Report, Section


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
