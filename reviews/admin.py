from typing import Any

from django.contrib import admin

from reviews.models import Answer, Card, IdempotencyRecord, Reveal


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


@admin.register(Card)
class CardAdmin(RecordAdmin):
    """A learner's card, found by learner or question; the scheduler changes it, not staff."""

    list_display = ("user", "question", "state", "due", "reps", "lapses", "suspended", "leech")
    list_filter = ("state", "suspended", "leech")
    search_fields = ("user__username", "question__key")
    list_select_related = ("user", "question")
    raw_id_fields = ("user", "question")


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(RecordAdmin):
    list_display = ("created_at", "user", "key", "status_code")
    raw_id_fields = ("user",)
