"""Writes on the question bank beyond loading content (see `quizzes.content`)."""

from __future__ import annotations

from django.db.models import F

from quizzes.models import BankRevision


def bank_revision_bump() -> None:
    """Marks every learner's deck stale: their next queue makes what is missing."""
    if not BankRevision.objects.filter(pk=1).update(number=F("number") + 1):
        BankRevision.objects.get_or_create(pk=1, defaults={"number": 1})
