"""Reads on the question bank, and who may open which question.

A question is Pro when the section it follows is: free learners neither see a Pro question in a
list or their queue nor open it (`question_is_open_to`, which every endpoint that serves or
grades a question asks).
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connections, router
from django.db.models import Prefetch, Q, QuerySet

from config import rows
from course.models import Access, Lesson, Section
from course.selectors import can_read, user_is_pro
from quizzes.models import Choice, Question


def question_is_open_to(user: Any, question: Question) -> bool:
    """Whether the caller may see and answer the question: always for a free section's, only
    with Pro for a Pro section's."""
    return can_read(user, question.section.access)


def open_to(user: Any, *, via: str = "") -> Q:
    """The same rule as a filter, for questions reached through `via` (such as "question__")."""
    if user_is_pro(user):
        return Q()
    return Q(**{f"{via}section__access": Access.FREE})


def question_list(*, user: Any) -> QuerySet[Question]:
    """Live questions of live lessons the caller may open, in course order (filters are applied
    by the API)."""
    return (
        Question.objects.live()
        .filter(open_to(user), lesson__archived_at__isnull=True)
        .select_related("lesson", "section")
        .order_by("lesson__number", "position", "pk")
    )


def question_detail(*, question_id: int) -> Question:
    """The live question with its lesson, course, section and choices in order; raises
    Question.DoesNotExist."""
    return (
        Question.objects.live()
        .filter(lesson__archived_at__isnull=True)
        .select_related("lesson__course", "section")
        .prefetch_related(Prefetch("choices", queryset=Choice.objects.order_by("position")))
        .get(pk=question_id)
    )


QUESTION_TO_ANSWER = rows.Columns(
    Question,
    defer=["prompt_markdown", "prompt_html", "explanation_markdown", "model_answer_markdown"],
)
LESSON_TO_ANSWER = rows.Columns(Lesson)
SECTION_TO_ANSWER = rows.Columns(Section, defer=["body_markdown", "body_html"])


@functools.cache
def _question_to_answer_sql(alias: str) -> str:
    connection = connections[alias]
    quote = connection.ops.quote_name
    joined = (QUESTION_TO_ANSWER, LESSON_TO_ANSWER, SECTION_TO_ANSWER)
    question, lesson, section = (quote(columns.table) for columns in joined)
    selected = ", ".join(columns.select(columns.table, connection) for columns in joined)
    return (
        f"SELECT {selected} FROM {question}"
        f" JOIN {lesson} ON {lesson}.{quote('id')} = {question}.{quote('lesson_id')}"
        f" JOIN {section} ON {section}.{quote('id')} = {question}.{quote('section_id')}"
        f" WHERE {question}.{quote('id')} = %s AND {question}.{quote('archived_at')} IS NULL"
        f" AND {lesson}.{quote('archived_at')} IS NULL"
    )


def question_to_answer(*, question_id: int) -> Question:
    """The live question of a live lesson with what grading needs (its lesson and section, less
    the texts only a page shows), in one query; choices come later, only for choice questions.
    Raises Question.DoesNotExist. Every answer makes this read, so its SQL is written once
    (`config.rows`) rather than compiled each time."""
    connection = connections[router.db_for_read(Question)]
    with connection.cursor() as cursor:
        cursor.execute(_question_to_answer_sql(connection.alias), [question_id])
        row = cursor.fetchone()
    if row is None:
        raise Question.DoesNotExist(f"No live question {question_id}")
    question = QUESTION_TO_ANSWER.instance(row, connection)
    start = len(QUESTION_TO_ANSWER)
    rows.relate(question, "lesson", LESSON_TO_ANSWER.instance(row, connection, start))
    start += len(LESSON_TO_ANSWER)
    rows.relate(question, "section", SECTION_TO_ANSWER.instance(row, connection, start))
    return question
