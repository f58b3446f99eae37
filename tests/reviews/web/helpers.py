"""Answers made as a learner makes them: through the answering service, one at a time."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from reviews.services import Submitted, answer_submit


def answered(user, question, *, at: datetime, right: bool = True) -> None:
    """A review-mode answer to a factory question (its answer is 8,000,000)."""
    with transaction.atomic():
        answer_submit(
            user=user,
            question=question,
            submitted=Submitted(response="8e6" if right else "4e6", duration_ms=20_000),
            now=at,
        )
