from typing import Any

from django.contrib import admin

from reviews.models import Answer, IdempotencyRecord, Reveal


class RecordAdmin(admin.ModelAdmin):
    """A learner's record: readable here, never added or edited."""

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: Any) -> bool:
        return False


@admin.register(Answer)
class AnswerAdmin(RecordAdmin):
    list_display = ("created_at", "user", "question", "mode", "status", "score", "misconception")
    list_filter = ("mode", "status", "notice")
    raw_id_fields = ("user", "question", "reveal")


@admin.register(Reveal)
class RevealAdmin(RecordAdmin):
    list_display = ("created_at", "user", "question", "variant_seed")
    raw_id_fields = ("user", "question")


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(RecordAdmin):
    list_display = ("created_at", "user", "key", "status_code")
    raw_id_fields = ("user",)
