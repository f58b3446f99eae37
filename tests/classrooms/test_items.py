"""Item analysis on the members' first attempts, checked against a hand computation."""

import statistics
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from classrooms.items import classroom_items, item_figures
from reviews.models import Answer
from tests.factories import (
    ClassroomFactory,
    CourseFactory,
    LessonFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

# First-attempt scores: learner -> (q1, q2, q3, q4); None where the learner never answered.
FIRST = {
    "a": (1, 1, 1, 1),
    "b": (1, 1, 0, 0),
    "c": (1, 0, 0, 1),
    "d": (0, 1, 0, None),
    "e": (0, 0, 0, None),
    "f": (1, 0.5, 1, None),
}
# The mistakes grading named on first attempts: (learner, item) -> code.
MISTAKES = {
    ("c", 1): "one_matrix",
    ("e", 1): "one_matrix",
    ("b", 2): "no_bias",
    ("e", 2): "no_bias",
}


def answer(user, question, score, *, at, misconception=""):
    row = Answer.objects.create(
        user=user, question=question, question_version=1, score=score,
        status="correct" if score == 1 else "incorrect" if score == 0 else "partial",
        misconception=misconception,
    )  # fmt: skip
    Answer.objects.filter(pk=row.pk).update(created_at=at)


@pytest.fixture
def classroom():
    course = CourseFactory()
    lesson = LessonFactory(course=course)
    questions = QuestionFactory.create_batch(4, lesson=lesson)
    classroom = ClassroomFactory(course=course)
    learners = {}
    for name, scores in FIRST.items():
        learners[name] = UserFactory(username=name)
        MembershipFactory(classroom=classroom, user=learners[name])
        for question, score in zip(questions, scores, strict=True):
            if score is None:
                continue
            if (name, question) == ("d", questions[1]):
                continue  # answered offline, below
            code = MISTAKES.get((name, questions.index(question)), "")
            answer(learners[name], question, score, at=T0, misconception=code)
    # Later attempts never count, right or wrong.
    answer(learners["e"], questions[0], 1, at=T0 + timedelta(days=1))
    answer(learners["b"], questions[2], 0, at=T0 + timedelta(days=1), misconception="later")
    # Synced later but made earlier: the earlier one is the first attempt.
    answer(learners["d"], questions[1], 0, at=T0 + timedelta(days=2), misconception="late")
    answer(learners["d"], questions[1], 1, at=T0)
    # Not a member, and a former member: never counted.
    answer(UserFactory(), questions[0], 0, at=T0)
    gone = MembershipFactory(classroom=classroom)
    answer(gone.user, questions[0], 0, at=T0)
    gone.delete()
    # Another course's question is not an item of this one.
    answer(learners["a"], QuestionFactory(), 0, at=T0)
    return classroom, questions


def hand_discrimination(item: int) -> float:
    """Pearson's r between the item's score and the mean of the learner's other scores."""
    x, rest = [], []
    for scores in FIRST.values():
        others = [s for i, s in enumerate(scores) if i != item and s is not None]
        if scores[item] is None or not others:
            continue
        x.append(scores[item])
        rest.append(sum(others) / len(others))
    return statistics.correlation(x, rest)


def test_items_match_a_hand_computation(classroom):
    room, questions = classroom

    items = classroom_items(classroom=room)

    assert [item.question for item in items] == [q.pk for q in questions]
    q1, q2, q3, q4 = items
    assert [q1.answers, q2.answers, q3.answers, q4.answers] == [6, 6, 6, 3]
    assert q1.facility == pytest.approx(4 / 6)
    assert q2.facility == pytest.approx(3.5 / 6)
    assert q3.facility == pytest.approx(2 / 6)
    for item, index in ((q1, 0), (q2, 1), (q3, 2)):
        assert item.discrimination == pytest.approx(hand_discrimination(index))
    assert q4.facility is None  # three learners: too few to say
    assert q4.discrimination is None
    assert q2.misconceptions == [{"code": "one_matrix", "count": 2}]
    assert q3.misconceptions == [{"code": "no_bias", "count": 2}]
    assert q1.misconceptions == []


def test_the_items_endpoint_serves_them_to_the_teacher(client, classroom):
    room, questions = classroom
    client.force_login(room.teacher)

    body = client.get(f"/api/v1/classrooms/{room.pk}/items/", secure=True).json()

    assert body["count"] == 4
    first = body["results"][0]
    assert (first["question"], first["key"], first["answers"]) == (
        questions[0].pk,
        questions[0].key,
        6,
    )
    assert first["facility"] == pytest.approx(4 / 6)


def test_an_item_everyone_gets_right_has_no_discrimination():
    figures = item_figures(
        learners=np.repeat(np.arange(6), 2),
        items=np.tile([0, 1], 6),
        scores=np.array([1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0], dtype=np.float64),
        n_items=2,
    )

    assert figures.facility == [1.0, 0.5]
    assert figures.discrimination[0] is None  # no spread in the item's scores
    assert figures.discrimination[1] is None  # no spread in the rest either


def test_no_answers_give_empty_figures():
    figures = item_figures(
        learners=np.array([], dtype=np.int64),
        items=np.array([], dtype=np.int64),
        scores=np.array([], dtype=np.float64),
        n_items=3,
    )

    assert figures.answers.tolist() == [0, 0, 0]
    assert figures.facility == [None, None, None]
    assert figures.discrimination == [None, None, None]
