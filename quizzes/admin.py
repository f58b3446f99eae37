from typing import Any

from django.contrib import admin

from course import markdown
from course.admin import save_rendered
from quizzes.models import Choice, Question
from quizzes.services import bank_revision_bump


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
