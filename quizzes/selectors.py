"""Reads on the question bank, and who may open which question.

A question is Pro when the section it follows is: free learners neither see a Pro question in a
list or their queue nor open it (`question_is_open_to`, which every endpoint that serves or
grades a question asks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from course import revisions
from course.models import Access, Lesson
from course.selectors import can_read, user_is_pro
from quizzes.models import Choice, Question


def question_is_open_to(user: Any, question: Question) -> bool:
    """Whether the caller may see and answer the question: always for a free section's, only
    with Pro for a Pro section's."""
    if question.section is None:
        return True  # the interview bank is open to everyone
    return can_read(user, question.section.access)


def open_to(user: Any, *, via: str = "") -> Q:
    """The same rule as a filter, for questions reached through `via` (such as "question__")."""
    return open_with(pro=user_is_pro(user), via=via)


def open_with(*, pro: bool, via: str = "") -> Q:
    """`open_to` for a learner with Pro or without. A question in no section (the interview
    bank's) is open to everyone."""
    if pro:
        return Q()
    return Q(**{f"{via}section__access": Access.FREE}) | Q(**{f"{via}section__isnull": True})


def question_list(*, user: Any) -> QuerySet[Question]:
    """Live questions of live lessons the caller may open, in course order (filters are applied
    by the API)."""
    return (
        Question.objects.live()
        .filter(open_to(user), lesson__archived_at__isnull=True)
        .select_related("lesson", "section")
        .order_by("lesson__number", "position", "pk")
    )


def _detailed() -> QuerySet[Question]:
    return (
        Question.objects.answerable()
        .select_related("lesson__course", "section", "category", "entry")
        .prefetch_related(Prefetch("choices", queryset=Choice.objects.order_by("position")))
    )


def question_detail(*, question_id: int) -> Question:
    """The live question with its lesson, course, section and choices in order (or, for the
    interview bank's, its category and entry); raises Question.DoesNotExist."""
    return _detailed().get(pk=question_id)


# Questions as answering reads them (never changes them), kept for one content revision.
_answerable: revisions.Kept[Question] = revisions.Kept(size=4096)


def questions_to_serve(*, question_ids: list[int], revision: int) -> dict[int, Question]:
    """The live questions of these ids, as `question_to_answer` keeps them, those not kept yet
    read together (two queries); an id with no live question is left out."""

    def build(missing: list[Any]) -> dict[Any, Question]:
        return {question.pk: question for question in _detailed().filter(pk__in=missing)}

    found = _answerable.get_many(question_ids, revision, build)
    return {question.pk: question for question in found.values()}


def question_to_answer(*, question_id: int, revision: int | None = None) -> Question:
    """The live question with what `question_detail` reads with it, as kept in this
    process for the content revision (`course.revisions`, read now unless given): built in two
    queries when the revision changes, and otherwise taken from memory. Every answer makes
    this read. Shared by every request in the process: read, never changed. Raises
    Question.DoesNotExist."""
    return _answerable.get(
        question_id,
        revisions.current() if revision is None else revision,
        lambda: question_detail(question_id=question_id),
    )


@dataclass(frozen=True)
class Closed:
    """Which questions a card may not bring, by lesson (the question's), for readers that go a
    lesson at a time without joining the content: the rules of `open_to` and of
    `question_list` as lists of ids."""

    pro: dict[int, tuple[int, ...]]
    """The questions of Pro sections: a free learner gets no card of them."""
    archived: dict[int, tuple[int, ...]]
    """The archived questions of live lessons: they bring no new card."""
    archived_lessons: frozenset[int]
    """Lessons archived: none of their questions brings a new card."""

    def for_reviews(self, user: Any) -> dict[int, tuple[int, ...]]:
        return {} if user_is_pro(user) else self.pro

    def for_new(self, user: Any) -> dict[int, tuple[int, ...]]:
        pro = self.for_reviews(user)
        return {
            lesson: (*pro.get(lesson, ()), *self.archived.get(lesson, ()))
            for lesson in pro.keys() | self.archived.keys()
        }


_closed: revisions.Kept[Closed] = revisions.Kept(size=1)


def questions_closed(*, revision: int) -> Closed:
    """`Closed` for the content revision, kept in this process (two queries when it
    changes)."""

    def build() -> Closed:
        pro: dict[int, list[int]] = {}
        archived: dict[int, list[int]] = {}
        rows = (
            Question.objects.filter(Q(section__access=Access.PRO) | Q(archived_at__isnull=False))
            .order_by("pk")
            .values_list("pk", "lesson_id", "section__access", "archived_at")
        )
        for pk, lesson_id, access, archived_at in rows:
            if access == Access.PRO:
                pro.setdefault(lesson_id, []).append(pk)
            if archived_at is not None:
                archived.setdefault(lesson_id, []).append(pk)
        lessons = Lesson.objects.filter(archived_at__isnull=False).values_list("pk", flat=True)
        return Closed(
            pro={lesson: tuple(ids) for lesson, ids in pro.items()},
            archived={lesson: tuple(ids) for lesson, ids in archived.items()},
            archived_lessons=frozenset(lessons),
        )

    return _closed.get("closed", revision, build)
