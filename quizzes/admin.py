from typing import Any

from django.contrib import admin

from course import markdown
from course.admin import save_rendered
from quizzes.deck import bank_revision_bump
from quizzes.models import Answer, Choice, IdempotencyRecord, Question


class ChoiceInline(admin.TabularInline):
    model = Choice
    extra = 0
    fields = ("position", "text_markdown", "is_correct", "explanation_html")


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("key", "kind", "topic", "difficulty", "lesson", "interview", "version")
    list_filter = ("kind", "topic", "difficulty", "interview", "lesson__course")
    search_fields = ("key", "prompt_markdown")
    readonly_fields = ("version", "answer_fingerprint", "created_at", "updated_at")
    exclude = ("prompt_html", "explanation_html", "model_answer_html")
    inlines = [ChoiceInline]

    def save_model(self, request: Any, obj: Question, form: Any, change: bool) -> None:
        obj.prompt_html = markdown.render(obj.prompt_markdown)
        obj.explanation_html = markdown.render(obj.explanation_markdown)
        obj.model_answer_html = markdown.render(obj.model_answer_markdown)
        super().save_model(request, obj, form, change)
        # Its lesson, place or archiving may have changed: decks catch up on their next queue.
        bank_revision_bump()

    def save_formset(self, request: Any, form: Any, formset: Any, change: bool) -> None:
        save_rendered(formset, source="text_markdown", target="text_html")


@admin.register(Answer)
class AnswerAdmin(admin.ModelAdmin):
    """Answers are a learner's record: readable here, never edited."""

    list_display = ("created_at", "user", "question", "mode", "status", "score", "misconception")
    list_filter = ("mode", "status")
    raw_id_fields = ("user", "question")

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: Any) -> bool:
        return False


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ("created_at", "user", "key", "status_code")
    raw_id_fields = ("user",)

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: Any) -> bool:
        return False
