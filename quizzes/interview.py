"""Reading the interview bank: its categories with counts per level, its questions by category
and level, and search. Open to everyone: a bank question's model answer is meant to be read.

Search is PostgreSQL full-text search where the database is PostgreSQL (`websearch_to_tsquery`
over the weighted `search` column, GIN-indexed: migration 0011), ranked; elsewhere each word
must appear in the question or its body, and questions keep the bank's order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import connections
from django.db.models import Count, Q, QuerySet
from django.db.models.expressions import RawSQL

from quizzes.models import InterviewCategory, Level, Question

SEARCH_MAX = 200  # characters of a search that are read; the rest is ignored


@dataclass(frozen=True)
class CategoryCounts:
    category: InterviewCategory
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def categories() -> list[CategoryCounts]:
    """Every live category, in the files' order, with its questions counted per level. One
    query."""
    live = Q(questions__archived_at__isnull=True)
    rows = InterviewCategory.objects.live().annotate(
        **{
            level: Count("questions", filter=live & Q(questions__level=level))
            for level in Level.values
        }
    )
    return [
        CategoryCounts(category=row, counts={level: getattr(row, level) for level in Level.values})
        for row in rows
    ]


def category(slug: str) -> InterviewCategory | None:
    return InterviewCategory.objects.live().filter(slug=slug).first()


def bank_questions(
    *,
    category: InterviewCategory | None = None,
    level: str | None = None,
    search: str = "",
) -> QuerySet[Question]:
    """The bank's live questions, with category and entry joined: by category and level in the
    files' order, or the best matches first when searching."""
    questions = Question.objects.interview_bank().select_related("category", "entry")
    if category is not None:
        questions = questions.filter(category=category)
    if level:
        questions = questions.filter(level=level)
    words = search_words(search)
    if not words:
        return questions.order_by("category__position", "position", "pk")
    if connections[questions.db].vendor == "postgresql":
        query = " ".join(words)
        matching = RawSQL(
            "SELECT question_id FROM quizzes_interviewentry"
            " WHERE search @@ websearch_to_tsquery('english', %s)",
            [query],
        )
        rank = RawSQL(
            "SELECT ts_rank(e.search, websearch_to_tsquery('english', %s))"
            " FROM quizzes_interviewentry e WHERE e.question_id = quizzes_question.id",
            [query],
        )
        return (
            questions.filter(pk__in=matching)
            .annotate(rank=rank)
            .order_by("-rank", "category__position", "position", "pk")
        )
    for word in words:
        questions = questions.filter(
            Q(entry__search_title__icontains=word) | Q(entry__search_body__icontains=word)
        )
    return questions.order_by("category__position", "position", "pk")


def plain_text(markdown_text: str) -> str:
    """Markdown as plain words (to search, or to describe a page): code fences, formulas'
    dollars and markup dropped."""
    text = re.sub(r"```.*?```", " ", markdown_text, flags=re.S)
    text = re.sub(r"[`*_#>|$\\]", " ", text)
    return " ".join(text.split())


def search_words(search: str) -> list[str]:
    """What a search asks for: its words, without characters no row holds (NUL) or that only
    steer a query language; at most SEARCH_MAX characters are read."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-'." else " " for ch in search[:SEARCH_MAX])
    return [w.strip("-'.") for w in cleaned.split() if w.strip("-'.")][:20]


def question(key: str) -> Question | None:
    """One live bank question by key, with its category, entry and the lesson that teaches it."""
    return (
        Question.objects.interview_bank()
        .select_related("category", "entry", "entry__teaching_lesson__course")
        .filter(key=key)
        .first()
    )


def related(question: Question) -> list[Question]:
    """The live bank questions this one names as related, in the order it names them."""
    keys = list(question.entry.related)
    found = {
        q.key: q
        for q in Question.objects.interview_bank().select_related("entry").filter(key__in=keys)
    }
    return [found[k] for k in keys if k in found]
