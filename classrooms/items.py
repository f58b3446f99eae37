"""Item analysis for a classroom: how each question of the course did on the members' first
attempts, in review (practice is the learner's own, and may follow a look at the answer).

- facility: the mean score of the first attempts (1: everyone right first time).
- discrimination: the point-biserial correlation between the score on the item and the
  learner's mean score on the rest of the course's items (first attempts, excluding this one),
  over learners who answered it and at least one other item. High: those who know the course
  get it right; near zero or negative: the item measures something else, or is flawed.
- misconceptions: the mistakes named by grading on those first attempts, most common first.

Both figures are None with fewer than MIN_LEARNERS learners. Three queries, whatever the size;
the statistics are one NumPy pass over every first attempt.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connections
from django.db.models import F, QuerySet, Window
from django.db.models.functions import RowNumber

from classrooms.models import Classroom
from classrooms.progress import course_question_ids, member_ids, positions
from quizzes.models import Question
from reviews.models import Answer

MIN_LEARNERS = 5


@dataclass(frozen=True)
class ItemStats:
    question: int
    key: str
    lesson: str
    answers: int
    facility: float | None
    discrimination: float | None
    misconceptions: list[dict[str, Any]]


@dataclass(frozen=True)
class FirstAttempts:
    """Parallel arrays, one entry per member and question answered, and the mistakes named."""

    learners: np.ndarray[Any, Any]
    questions: np.ndarray[Any, Any]
    scores: np.ndarray[Any, Any]
    mistakes: Counter[tuple[int, str]]


def _first_answers(classroom: Classroom, members: list[int]) -> QuerySet[Answer, Any]:
    answers = Answer.objects.filter(
        user_id__in=members,
        question_id__in=course_question_ids(classroom),
        mode=Answer.Mode.REVIEW,
    )
    if connections[answers.db].features.can_distinct_on_fields:
        # PostgreSQL walks the (user, question, created_at) index in order.
        return answers.order_by("user_id", "question_id", "created_at", "pk").distinct(
            "user_id", "question_id"
        )
    return (
        answers.annotate(
            attempt=Window(
                RowNumber(),
                partition_by=[F("user_id"), F("question_id")],
                order_by=[F("created_at").asc(), F("pk").asc()],
            )
        )
        .filter(attempt=1)
        .order_by()
    )


def first_attempts(classroom: Classroom) -> FirstAttempts:
    """Each member's first answer to each question of the course, first by the time it was
    given. Grouped per learner in the database and read back as one text per learner, so a
    class of 200 with 500 questions each costs 200 rows, not 100,000."""
    members = list(member_ids(classroom).values_list("user_id", flat=True))
    if not members:
        # Nobody to read: an empty IN list is no SQL at all (Django refuses to build it).
        none = np.array([], dtype=np.int64)
        return FirstAttempts(
            learners=none, questions=none, scores=none.astype(np.float64), mistakes=Counter()
        )
    inner, params = (
        _first_answers(classroom, members)
        .values("user_id", "question_id", "score", "misconception")
        .query.sql_with_params()
    )
    connection = connections[Answer.objects.db]
    joined = "GROUP_CONCAT({}, ',')" if connection.vendor == "sqlite" else "STRING_AGG({}, ',')"
    scored = "CAST(question_id AS TEXT) || ' ' || CAST(score AS TEXT)"
    named = (
        "CASE WHEN misconception <> '' THEN CAST(question_id AS TEXT) || ' ' || misconception END"
    )
    sql = (
        f"SELECT user_id, {joined.format(scored)}, {joined.format(named)} "
        f"FROM ({inner}) firsts GROUP BY user_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    counts = np.array([text.count(",") + 1 for _, text, _ in rows], dtype=np.int64)
    pairs = np.array(
        " ".join(text for _, text, _ in rows).replace(",", " ").split(), dtype=np.float64
    ).reshape(-1, 2)
    mistakes: Counter[tuple[int, str]] = Counter()
    for _, _, named_text in rows:
        if named_text:
            for entry in named_text.split(","):
                question, code = entry.split(" ", 1)
                mistakes[(int(question), code)] += 1
    return FirstAttempts(
        learners=np.repeat(np.array([row[0] for row in rows], dtype=np.int64), counts),
        questions=pairs[:, 0].astype(np.int64),
        scores=pairs[:, 1],
        mistakes=mistakes,
    )


def classroom_items(*, classroom: Classroom) -> list[ItemStats]:
    """Every live question of the classroom's course, in course order, with its figures."""
    questions = list(
        Question.objects.live()
        .filter(lesson__course_id=classroom.course_id, lesson__archived_at__isnull=True)
        .order_by("lesson__number", "position", "pk")
        .values_list("pk", "key", "lesson__slug")
    )
    attempts = first_attempts(classroom)
    column = {pk: i for i, (pk, _, _) in enumerate(questions)}
    items = positions(column, attempts.questions.astype(np.float64))
    live = items >= 0  # answers to archived questions are not items any more
    figures = item_figures(
        learners=attempts.learners[live],
        items=items[live],
        scores=attempts.scores[live],
        n_items=len(questions),
    )
    by_question: dict[int, list[dict[str, Any]]] = {}
    ranked = sorted(attempts.mistakes.items(), key=lambda kv: (-kv[1], kv[0][1]))
    for (question, code), count in ranked:
        by_question.setdefault(question, []).append({"code": code, "count": count})
    return [
        ItemStats(
            question=pk,
            key=key,
            lesson=lesson,
            answers=int(figures.answers[i]),
            facility=figures.facility[i],
            discrimination=figures.discrimination[i],
            misconceptions=by_question.get(pk, []),
        )
        for i, (pk, key, lesson) in enumerate(questions)
    ]


@dataclass(frozen=True)
class ItemFigures:
    answers: np.ndarray[Any, Any]
    facility: list[float | None]
    discrimination: list[float | None]


def item_figures(
    *,
    learners: np.ndarray[Any, Any],
    items: np.ndarray[Any, Any],
    scores: np.ndarray[Any, Any],
    n_items: int,
    min_learners: int = MIN_LEARNERS,
) -> ItemFigures:
    """Facility and discrimination per item from parallel arrays of first attempts (one entry
    per learner and item: the learner's id, the item's column, the score)."""
    answers = np.bincount(items, minlength=n_items)
    sums = np.bincount(items, weights=scores, minlength=n_items)
    facility = [
        float(sums[i] / answers[i]) if answers[i] >= min_learners else None for i in range(n_items)
    ]

    # Each attempt's "rest": the learner's mean score on their other items.
    _, who = np.unique(learners, return_inverse=True)
    total = np.bincount(who, weights=scores)[who]
    count = np.bincount(who)[who]
    has_rest = count > 1
    x = scores[has_rest]
    y = (total[has_rest] - x) / (count[has_rest] - 1)
    at = items[has_rest]

    def per_item(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.bincount(at, weights=values, minlength=n_items)

    n = np.bincount(at, minlength=n_items).astype(np.float64)
    sx, sy, sxx, syy, sxy = (
        per_item(x),
        per_item(y),
        per_item(x * x),
        per_item(y * y),
        per_item(x * y),
    )
    spread = (n * sxx - sx * sx) * (n * syy - sy * sy)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (n * sxy - sx * sy) / np.sqrt(spread)
    discrimination = [
        float(np.clip(r[i], -1.0, 1.0)) if n[i] >= min_learners and spread[i] > 1e-12 else None
        for i in range(n_items)
    ]
    return ItemFigures(answers=answers, facility=facility, discrimination=discrimination)
