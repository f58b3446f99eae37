"""Mock interviews: questions of the interview bank, picked from the categories and level the
learner chose, put one at a time against a clock; each answer is a review (so every question
joins the schedule), and the end is a summary by category with the key points missed.

Questions the learner has never practised come first, then those they know least well (due
soonest); the categories take turns, so a mock over several of them asks about each.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count, Q

from accounts.models import User
from engine.scheduling import rating_from_key_points
from quizzes.models import InterviewCategory, Question
from reviews.models import Answer, Card, MockInterview, MockQuestion

MINUTES = {"junior": 2, "mid": 3, "senior": 4}
"""About how long a spoken answer takes at each level; a number, two minutes."""
RECENT = 10


class NothingToAsk(ValueError):
    """No live question of the bank matches the categories and level chosen."""


def minutes_for(question: Question) -> int:
    return 2 if question.kind == Question.Kind.NUMERIC else MINUTES.get(question.level, 3)


def _picked(
    *, user: User, categories: Sequence[InterviewCategory], level: str, length: int, rng: Any
) -> list[int]:
    """The ids of `length` questions to ask (fewer if fewer match), the categories taking
    turns: in each, the never practised first, in a random order, then the rest soonest
    due first."""
    # Spoken or worked out: a coding question is practised in its editor, not against a clock.
    pool = Question.objects.interview_bank().exclude(kind=Question.Kind.CODE)
    if categories:
        pool = pool.filter(category__in=categories)
    if level:
        pool = pool.filter(level=level)
    by_category: dict[int, list[int]] = defaultdict(list)
    for pk, category_id in pool.order_by("pk").values_list("pk", "category_id"):
        by_category[category_id].append(pk)
    if not by_category:
        raise NothingToAsk("No question of the bank matches these categories and level.")
    ids = [pk for pks in by_category.values() for pk in pks]
    due = dict(
        Card.objects.filter(user=user, lesson__isnull=True, question_id__in=ids)
        .exclude(state=Card.State.NEW)
        .values_list("question_id", "due")
    )
    turns: list[list[int]] = []
    for pks in by_category.values():
        fresh = [pk for pk in pks if pk not in due]
        rng.shuffle(fresh)
        turns.append(fresh + sorted((pk for pk in pks if pk in due), key=due.__getitem__))
    rng.shuffle(turns)
    chosen: list[int] = []
    while len(chosen) < length and any(turns):
        for queue in turns:
            if queue and len(chosen) < length:
                chosen.append(queue.pop(0))
    return chosen


def mock_start(
    *,
    user: User,
    categories: Sequence[InterviewCategory],
    level: str,
    length: int,
    now: datetime,
    rng: Any = None,
) -> MockInterview:
    """A new mock interview of `length` questions (fewer when fewer match); raises
    `NothingToAsk` when none does."""
    ids = _picked(
        user=user,
        categories=categories,
        level=level,
        length=length,
        rng=rng or random.SystemRandom(),
    )
    with transaction.atomic():
        mock = MockInterview(
            user=user, level=level, categories=sorted(c.slug for c in categories), created_at=now
        )
        mock.full_clean(exclude=["user"])
        mock.save()
        MockQuestion.objects.bulk_create(
            MockQuestion(mock=mock, position=place, question_id=pk)
            for place, pk in enumerate(ids, start=1)
        )
    return mock


def mock_of(*, user: User, mock_id: int) -> MockInterview | None:
    """The learner's own mock interview (None for anyone else's)."""
    return MockInterview.objects.filter(user=user, pk=mock_id).first()


def mock_questions(mock: MockInterview) -> list[MockQuestion]:
    """Its questions in order, each with its question (category and entry) and answer."""
    return list(
        mock.questions.select_related("question__category", "question__entry", "answer__reveal")
        .order_by("position")
        .all()
    )


def mock_current(questions: Sequence[MockQuestion]) -> MockQuestion | None:
    """The first question not answered yet (None when every one is)."""
    return next((q for q in questions if q.answer_id is None), None)


def mock_question_shown(item: MockQuestion, *, now: datetime) -> None:
    """Starts the question's clock, the first time it is shown."""
    if item.shown_at is None:
        updated = MockQuestion.objects.filter(pk=item.pk, shown_at__isnull=True).update(
            shown_at=now
        )
        item.shown_at = now if updated else MockQuestion.objects.get(pk=item.pk).shown_at


def mock_answered(*, item: MockQuestion, answer_id: int, now: datetime) -> None:
    """Notes the answer its question got (in the answer's transaction), and the end of the
    mock when it was the last one. A question answered before keeps its first answer."""
    MockQuestion.objects.filter(pk=item.pk, answer__isnull=True).update(answer_id=answer_id)
    left = MockQuestion.objects.filter(mock_id=item.mock_id, answer__isnull=True).exists()
    if not left:
        MockInterview.objects.filter(pk=item.mock_id, finished_at__isnull=True).update(
            finished_at=now
        )


def mocks_recent(*, user: User) -> list[MockInterview]:
    """The learner's latest mock interviews, newest first, each with its questions counted
    (`asked`) and answered (`answered`)."""
    return list(
        MockInterview.objects.filter(user=user)
        .annotate(
            asked=Count("questions"),
            answered=Count("questions", filter=Q(questions__answer__isnull=False)),
        )
        .order_by("-created_at", "-pk")[:RECENT]
    )


# --- the summary -------------------------------------------------------------------------------


def duration(seconds: int) -> str:
    """A time as a person says it: "45 seconds", "2 minutes 5 seconds", "12 minutes"."""
    minutes, rest = divmod(max(seconds, 0), 60)

    def unit(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    if not minutes:
        return unit(rest, "second")
    if minutes >= 10 or not rest:
        return unit(minutes + (rest >= 30 and minutes >= 10), "minute")
    return f"{unit(minutes, 'minute')} {unit(rest, 'second')}"


@dataclass(frozen=True)
class Missed:
    question: Question
    point: str


@dataclass(frozen=True)
class Asked:
    """One question of the mock as the summary shows it."""

    position: int
    question: Question
    answer: Answer | None
    seconds: int | None
    covered: int | None  # key points ticked (None for a question answered with a number)
    points: int
    suggested: str
    due: datetime | None
    missed: list[str] = field(default_factory=list)

    @property
    def took(self) -> str:
        return "" if self.seconds is None else duration(self.seconds)

    @property
    def rating(self) -> str:
        if self.answer is None or self.answer.rating is None:
            return ""
        return ("again", "hard", "good", "easy")[self.answer.rating - 1]


@dataclass(frozen=True)
class CategoryLine:
    category: InterviewCategory
    asked: list[Asked]

    @property
    def covered(self) -> int:
        return sum(a.covered or 0 for a in self.asked if a.covered is not None)

    @property
    def points(self) -> int:
        return sum(a.points for a in self.asked if a.covered is not None)

    @property
    def right(self) -> int:
        """Questions answered with a number, and right."""
        return sum(
            1
            for a in self.asked
            if a.covered is None and a.answer is not None and a.answer.status == "correct"
        )

    @property
    def numbers(self) -> int:
        return sum(1 for a in self.asked if a.covered is None)

    @property
    def share(self) -> float:
        """How much of it was known: key points covered and numbers right, together."""
        done = self.covered + self.right
        whole = self.points + self.numbers
        return done / whole if whole else 0.0

    @property
    def missed(self) -> list[Missed]:
        return [Missed(a.question, point) for a in self.asked for point in a.missed]


@dataclass(frozen=True)
class Summary:
    mock: MockInterview
    asked: list[Asked]
    categories: list[CategoryLine]
    """Weakest first."""

    @property
    def seconds(self) -> int:
        return sum(a.seconds or 0 for a in self.asked)

    @property
    def took(self) -> str:
        return duration(self.seconds)

    @property
    def answered(self) -> int:
        return sum(1 for a in self.asked if a.answer is not None)


def mock_summary(*, user: User, mock: MockInterview) -> Summary:
    """The mock by category, weakest first, with each question's time, the key points it
    missed, and when the learner's schedule brings it back."""
    questions = mock_questions(mock)
    due = dict(
        Card.objects.filter(user=user, question_id__in=[q.question_id for q in questions])
        .exclude(state=Card.State.NEW)
        .values_list("question_id", "due")
    )
    asked = [_asked(item, due.get(item.question_id)) for item in questions]
    lines: dict[InterviewCategory, list[Asked]] = defaultdict(list)
    for each in asked:
        assert each.question.category is not None  # a question of the bank
        lines[each.question.category].append(each)
    categories = [CategoryLine(category, items) for category, items in lines.items()]
    categories.sort(key=lambda line: (line.share, line.category.position))
    return Summary(mock=mock, asked=asked, categories=categories)


def _asked(item: MockQuestion, due: datetime | None) -> Asked:
    question, answer = item.question, item.answer
    points = list(question.entry.key_points)
    ended = None
    if answer is not None:
        ended = answer.reveal.created_at if answer.reveal is not None else answer.created_at
    seconds = (
        max(round((ended - item.shown_at).total_seconds()), 0)
        if ended is not None and item.shown_at is not None
        else None
    )
    covered: int | None = None
    missed: list[str] = []
    suggested = ""
    if question.kind == Question.Kind.FREE_TEXT:
        ticked = set(answer.covered_key_points or []) if answer is not None else set()
        covered = len(ticked)
        missed = [p for i, p in enumerate(points) if i not in ticked] if answer else points
        suggested = rating_from_key_points(covered, len(points)).label if answer else ""
    return Asked(
        position=item.position,
        question=question,
        answer=answer,
        seconds=seconds,
        covered=covered,
        points=len(points),
        suggested=suggested,
        due=due if answer is not None else None,
        missed=missed,
    )
