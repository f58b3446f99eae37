"""Reading the interview bank: its categories with counts per level, its questions by category
and level, and search. Open to everyone: a bank question's model answer is meant to be read.

Search is PostgreSQL full-text search where the database is PostgreSQL (`websearch_to_tsquery`
over the weighted `search` column, GIN-indexed: migration 0011), ranked; elsewhere each word
must appear in the question, its answer or its notes, and the questions that hold every word
in their own wording come first, then the bank's order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from django.db import connections, transaction
from django.db.models import Case, Count, Q, QuerySet, Value, When

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
) -> Listing:
    """The bank's live questions, with category and entry joined: by category and level in the
    files' order, or the best matches first when searching."""
    questions = Question.objects.interview_bank()
    if category is not None:
        questions = questions.filter(category=category)
    if level:
        questions = questions.filter(level=level)
    return searched(questions, search)


Listing = QuerySet[Question] | Sequence[Question]


def searched(questions: QuerySet[Question], search: str) -> Listing:
    """`questions` matching the search, best first; all of them in the bank's order when it
    has no words. On PostgreSQL the matches are ranked in one narrow query over the GIN index
    (their ids only), and a page loads just its own rows (`Ranked`)."""
    shown = questions.select_related("category", "entry")
    words = search_words(search)
    if not words:
        return shown.order_by("category__position", "position", "pk")
    if connections[questions.db].vendor == "postgresql":
        return Ranked(ranked_ids(questions, words), shown)
    in_title = Q()
    for word in words:
        in_title &= Q(entry__search_title__icontains=word)
        shown = shown.filter(
            Q(entry__search_title__icontains=word)
            | Q(entry__search_answer__icontains=word)
            | Q(entry__search_notes__icontains=word)
        )
    # Without ranking, the questions that ask about it come before those that mention it.
    first = Case(When(in_title, then=Value(0)), default=Value(1))
    return shown.order_by(first, "category__position", "position", "pk")


def ranked_ids(questions: QuerySet[Question], words: list[str]) -> list[int]:
    """Runs `ranking_sql` with the GIN index made the planner's only way in. A common word
    matches a fifth of the bank; the planner then prices reading every entry below the index,
    not counting that each entry's tsvector must be de-TOASTed to be matched. At 20,000
    questions a search for "layer norm" took 98 ms that way and 38 ms by the index
    (bench/bank_search.py). The setting is restored before the transaction goes on."""
    with transaction.atomic(using=questions.db), connections[questions.db].cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_seqscan')")
        (before,) = cursor.fetchone()
        cursor.execute("SELECT set_config('enable_seqscan', 'off', true)")
        cursor.execute(*ranking_sql(questions, words))
        ids = [row[0] for row in cursor.fetchall()]
        cursor.execute("SELECT set_config('enable_seqscan', %s, true)", [before])
    return ids


def ranking_sql(questions: QuerySet[Question], words: list[str]) -> tuple[str, list[object]]:
    """The ids of `questions` matching every word, best first (PostgreSQL): the GIN index finds
    the matches, `ts_rank` over the question and its answer orders them (the question's own
    words weigh most; a match in the notes alone comes after)."""
    inner, params = questions.order_by().values("pk").query.sql_with_params()
    query = "websearch_to_tsquery('english', %s)"
    # The matches first, on their own (materialized), so the planner takes the GIN index for
    # them rather than scanning every entry to join it with the filter.
    sql = (
        "WITH matched AS MATERIALIZED ("
        f" SELECT question_id, ts_rank(search_rank, {query}) AS rank"
        f" FROM quizzes_interviewentry WHERE search @@ {query})"
        f" SELECT question_id FROM matched WHERE question_id IN ({inner})"
        " ORDER BY rank DESC, question_id"
    )
    text = " ".join(words)
    return sql, [text, text, *params]


class Ranked(Sequence[Question]):
    """Questions in the order of `ids`, read a slice at a time: what a paginator needs of a
    ranked search (its length, and the rows of one page)."""

    def __init__(self, ids: list[int], questions: QuerySet[Question]) -> None:
        self.ids = ids
        self.questions = questions

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Question: ...

    @overload
    def __getitem__(self, index: slice) -> list[Question]: ...

    def __getitem__(self, index: int | slice) -> Question | list[Question]:
        if isinstance(index, int):
            return self[index : index + 1][0] if index >= 0 else self[len(self) + index]
        chunk = self.ids[index]
        rows = self.questions.in_bulk(chunk)
        return [rows[pk] for pk in chunk if pk in rows]


_LATEX = {r"\\cdot": "·", r"\\times": "×", r"\\approx": "≈", r"\\le": "≤", r"\\ge": "≥"}


def _formula_text(formula: str) -> str:
    """A formula as a title or a search can hold it: `\\sqrt{d_k}` as √d_k, `\\frac{a}{b}` as
    a/b, other commands by their names, braces dropped."""
    text = formula
    for command, symbol in _LATEX.items():
        text = re.sub(command + r"(?![a-zA-Z])", symbol, text)
    text = re.sub(r"\\sqrt\{([^{}]*)\}", r"√\1", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)
    text = re.sub(r"\\(?:left|right|operatorname|mathrm|text|mathbf)\b", "", text)
    text = re.sub(r"\\([a-zA-Z]+)", r"\1", text)
    return text.replace("{", "").replace("}", "").replace("\\", "")


def plain_text(markdown_text: str) -> str:
    """Markdown as plain words (to search, or to describe a page): code fences dropped,
    formulas written out as text, markup dropped."""
    text = re.sub(r"```.*?```", " ", markdown_text, flags=re.S)
    parts = re.split(r"(\$\$.*?\$\$|\$[^$\n]+\$)", text, flags=re.S)
    words = [
        _formula_text(part.strip("$")) if part.startswith("$") else re.sub(r"[`*_#>|\\]", " ", part)
        for part in parts
    ]
    return " ".join("".join(words).split())


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
