"""Reads on the question bank."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from quizzes.models import Choice, Question


def question_list() -> QuerySet[Question]:
    """Live questions of live lessons, in course order (filters are applied by the API)."""
    return (
        Question.objects.live()
        .filter(lesson__archived_at__isnull=True)
        .select_related("lesson")
        .order_by("lesson__number", "position", "pk")
    )


def question_detail(*, question_id: int) -> Question:
    """The live question with its choices in order; raises Question.DoesNotExist."""
    return (
        Question.objects.live()
        .filter(lesson__archived_at__isnull=True)
        .select_related("lesson")
        .prefetch_related(Prefetch("choices", queryset=Choice.objects.order_by("position")))
        .get(pk=question_id)
    )


def question_to_answer(*, question_id: int) -> Question:
    """The live question with what grading needs, in one query; choices come later, only for
    choice questions. Raises Question.DoesNotExist."""
    return (
        Question.objects.live()
        .filter(lesson__archived_at__isnull=True)
        .defer("prompt_markdown", "prompt_html", "explanation_markdown", "model_answer_markdown")
        .get(pk=question_id)
    )
