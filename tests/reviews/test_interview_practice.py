"""Practising the interview bank over the API: the key points ticked suggest the rating (all:
Good; more than half: Hard; fewer: Again), a learner's own rating may move it one step, and
the answer is a review: the card is scheduled, comes back in the queue when due (never as
new), and the work counts in the learner's days like any other."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from quizzes.models import Question
from reviews.models import Answer, Card, Reveal, StudyDay, StudyTotal
from reviews.queue import review_queue
from reviews.rollups import rebuild_everyone, study_date_at
from reviews.stats import learner_stats
from tests.conftest import assert_problem
from tests.factories import BankQuestionFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

FIVE = [f"Key point number {n}." for n in range(1, 6)]


def practise(api, question, body, **kwargs):
    return api.post(f"/api/v1/interview/questions/{question.key}/practice/", body, **kwargs)


def written():
    """What a practice writes, counted."""
    return (Answer.objects.count(), Card.objects.count(), Reveal.objects.count())


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


@pytest.mark.parametrize(
    ("covered", "suggested", "card_state"),
    [
        ([0, 1, 2, 3, 4], "good", "learning"),
        ([0, 1, 2], "hard", "learning"),  # three of five: most
        ([3, 4], "again", "learning"),  # two of five: few
        ([], "again", "learning"),
    ],
)
def test_the_key_points_covered_suggest_the_rating_and_schedule_the_card(
    api, learner, covered, suggested, card_state
):
    question = BankQuestionFactory(key_points=FIVE)

    response = practise(api, question, {"covered_key_points": covered, "response": "My answer."})

    body = response.json()
    assert response.status_code == 201, body
    assert body["key_points"] == {
        "total": 5,
        "covered": sorted(covered),
        "missed": [i for i in range(5) if i not in covered],
        "suggested_rating": suggested,
        "rating": suggested,
    }
    assert body["mode"] == "review"
    assert body["review"]["rating"] == suggested
    card = Card.objects.get(user=learner, question=question)
    assert (card.lesson_id, card.state, card.reps) == (None, card_state, 1)
    answer = Answer.objects.get(pk=body["answer_id"])
    assert answer.covered_key_points == sorted(covered)
    assert answer.reveal is not None  # the model answer counts as looked at
    assert body["model_answer_html"] == question.model_answer_html


def test_four_key_points_need_three_for_hard():
    from engine.scheduling import Rating, rating_from_key_points

    assert [rating_from_key_points(n, 4) for n in range(5)] == [
        Rating.AGAIN, Rating.AGAIN, Rating.AGAIN, Rating.HARD, Rating.GOOD,
    ]  # fmt: skip
    assert [rating_from_key_points(n, 3) for n in range(4)] == [
        Rating.AGAIN, Rating.AGAIN, Rating.HARD, Rating.GOOD,
    ]  # fmt: skip
    with pytest.raises(ValueError, match="6 key points covered out of 5"):
        rating_from_key_points(6, 5)


@pytest.mark.parametrize(
    ("covered", "rating", "given"),
    [([0, 1, 2, 3, 4], "easy", "easy"), ([0, 1, 2, 3, 4], "hard", "hard"), ([0], "hard", "hard")],
)
def test_the_learner_may_move_the_suggestion_one_step(api, learner, covered, rating, given):
    question = BankQuestionFactory(key_points=FIVE)

    response = practise(api, question, {"covered_key_points": covered, "rating": rating})

    assert response.status_code == 201, response.text
    assert response.json()["key_points"]["rating"] == given
    assert response.json()["review"]["rating"] == given


@pytest.mark.parametrize(
    ("covered", "rating"),
    [([], "good"), ([], "easy"), ([0, 1, 2, 3, 4], "again"), ([0, 1, 2], "easy")],
)
def test_a_rating_two_steps_from_the_suggestion_is_refused_and_writes_nothing(
    api, learner, covered, rating
):
    question = BankQuestionFactory(key_points=FIVE)
    before = written()

    body = assert_problem(
        practise(api, question, {"covered_key_points": covered, "rating": rating}), 400, "rating"
    )

    assert "one step at most" in body["detail"]
    assert written() == before


def test_said_out_loud_nothing_typed_still_counts_by_its_key_points(api, learner):
    """A blank answer is Again on the plain answer path (nothing written recalls nothing);
    an interview answer may be said aloud, and its ticks rate it."""
    question = BankQuestionFactory(key_points=FIVE)

    response = practise(api, question, {"covered_key_points": [0, 1, 2, 3, 4], "response": ""})

    assert response.status_code == 201, response.text
    assert (response.json()["status"], response.json()["score"]) == ("self_graded", 1.0)
    assert response.json()["review"]["rating"] == "good"

    # The plain path, with no key points, keeps its rule for the same question.
    reveal = api.post(f"/api/v1/questions/{question.pk}/reveal/", {}).json()
    plain = api.post(
        f"/api/v1/questions/{question.pk}/answers/",
        {"response": "  ", "self_rating": "easy", "reveal": reveal["id"]},
    )
    assert plain.status_code == 201, plain.text
    assert plain.json()["review"]["rating"] == "again"


def test_the_reveal_shows_the_key_points_and_the_practice_follows_it(api, learner):
    question = BankQuestionFactory(key_points=FIVE)

    reveal = api.post(f"/api/v1/questions/{question.pk}/reveal/", {})

    assert reveal.status_code == 201, reveal.text
    assert reveal.json()["key_points"] == FIVE
    practised = practise(
        api, question, {"covered_key_points": [0, 1, 2, 3, 4], "reveal": reveal.json()["id"]}
    )
    assert practised.status_code == 201, practised.text
    assert Answer.objects.get(pk=practised.json()["answer_id"]).reveal_id == reveal.json()["id"]
    assert Reveal.objects.filter(user=learner).count() == 1
    # That reveal was followed once: naming it again is refused.
    again = practise(api, question, {"covered_key_points": [], "reveal": reveal.json()["id"]})
    assert_problem(again, 400, "reveal")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "covered_key_points"),
        ({"covered_key_points": None}, "covered_key_points"),
        ({"covered_key_points": "0,1"}, "covered_key_points"),
        ({"covered_key_points": {"0": True}}, "covered_key_points"),
        ({"covered_key_points": [0, 0]}, "covered_key_points"),
        ({"covered_key_points": [4]}, "covered_key_points"),  # four key points: 0 to 3
        ({"covered_key_points": [-1]}, "covered_key_points.0"),
        ({"covered_key_points": [True]}, "covered_key_points.0"),
        ({"covered_key_points": [1.5]}, "covered_key_points.0"),
        ({"covered_key_points": ["1"]}, "covered_key_points.0"),
        ({"covered_key_points": [2**63]}, "covered_key_points.0"),
        ({"covered_key_points": [0] * 21}, "covered_key_points"),
        ({"covered_key_points": [[0]]}, "covered_key_points.0"),
        ({"covered_key_points": [], "rating": "perfect"}, "rating"),
        ({"covered_key_points": [], "rating": 3}, "rating"),
        ({"covered_key_points": [], "response": "x" * 2001}, "response"),
        ({"covered_key_points": [], "reveal": 0}, "reveal"),
        ({"covered_key_points": [], "reveal": "1"}, "reveal"),
        ({"covered_key_points": [], "duration_ms": -5}, "duration_ms"),
        ({"covered_key_points": [], "client_id": "not-a-uuid"}, "client_id"),
    ],
)
def test_what_a_hostile_client_sends_is_refused_naming_the_field(api, learner, body, field):
    question = BankQuestionFactory()
    before = written()

    assert_problem(practise(api, question, body), 400, field)

    assert written() == before


def test_a_nul_byte_in_the_answer_is_refused_not_stored(api, learner):
    question = BankQuestionFactory()

    response = practise(api, question, {"covered_key_points": [], "response": "a\x00b"})

    assert response.status_code == 400, response.text
    assert Answer.objects.count() == 0


def test_another_learners_reveal_is_refused(api, other_api, learner):
    question = BankQuestionFactory()
    other_api.authenticate(UserFactory())
    theirs = other_api.post(f"/api/v1/questions/{question.pk}/reveal/", {}).json()["id"]
    before = written()

    assert_problem(
        practise(api, question, {"covered_key_points": [], "reveal": theirs}), 400, "reveal"
    )

    assert written() == before


def test_a_practice_sent_again_counts_once(api, learner):
    question = BankQuestionFactory()
    body = {"covered_key_points": [0, 1, 2, 3], "client_id": str(uuid.uuid4())}

    first = practise(api, question, body)
    again = practise(api, question, body)
    keyed = practise(
        api, question, {"covered_key_points": [0]}, headers={"Idempotency-Key": "practice-1"}
    )
    keyed_again = practise(
        api, question, {"covered_key_points": [0]}, headers={"Idempotency-Key": "practice-1"}
    )
    reused = practise(
        api, question, {"covered_key_points": [1]}, headers={"Idempotency-Key": "practice-1"}
    )

    assert first.status_code == 201, first.text
    assert again.json()["answer_id"] == first.json()["answer_id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert keyed_again.json() == keyed.json()
    assert_problem(reused, 422)
    assert Answer.objects.filter(user=learner).count() == 2
    assert Card.objects.get(user=learner, question=question).reps == 2


def test_only_questions_answered_in_words_are_practised_by_key_points(api, learner):
    numeric = BankQuestionFactory(
        kind=Question.Kind.NUMERIC, answer=42, tolerance={"kind": "exact", "amount": 0}
    )
    course_question = QuestionFactory()

    assert_problem(practise(api, numeric, {"covered_key_points": []}), 422)
    missing = api.post(
        f"/api/v1/interview/questions/{course_question.key}/practice/", {"covered_key_points": []}
    )
    assert_problem(missing, 404)
    assert_problem(
        api.post("/api/v1/interview/questions/no-such-key/practice/", {"covered_key_points": []}),
        404,
    )
    assert written() == (0, 0, 0)


def test_an_archived_question_is_not_practised(api, learner):
    question = BankQuestionFactory(archived_at=timezone.now())

    assert_problem(practise(api, question, {"covered_key_points": []}), 404)


def test_practising_needs_an_account(api):
    question = BankQuestionFactory()

    assert_problem(practise(api.anonymous(), question, {"covered_key_points": []}), 401)


# --- the schedule ------------------------------------------------------------------------------


def test_a_practised_question_comes_back_when_due_and_never_as_new(api, learner):
    practised, looked_at = BankQuestionFactory(), BankQuestionFactory()
    course_question = QuestionFactory()
    assert practise(api, practised, {"covered_key_points": []}).status_code == 201
    # Looked at, never answered: its card waits as new, and the queue never serves it so.
    assert api.post(f"/api/v1/questions/{looked_at.pk}/reveal/", {}).status_code == 201
    assert Card.objects.get(user=learner, question=looked_at).state == "new"

    soon = review_queue(user=learner, now=timezone.now() + timedelta(minutes=30), limit=10)

    assert [c.question_id for c in soon.cards] == [practised.pk]
    assert [q.pk for q in soon.new_questions] == [course_question.pk]
    assert soon.new_count == 1
    narrowed = review_queue(
        user=learner,
        now=timezone.now() + timedelta(minutes=30),
        limit=10,
        course=course_question.lesson.course.slug,
    )
    assert narrowed.cards == []
    stats = learner_stats(user=learner, now=timezone.now())
    assert stats.new_available == 1


def test_the_queue_serves_a_due_bank_card_ready_to_answer(api, learner):
    question = BankQuestionFactory()
    assert practise(api, question, {"covered_key_points": []}).status_code == 201
    Card.objects.filter(user=learner).update(due=timezone.now() - timedelta(minutes=1))

    queue = api.get("/api/v1/reviews/queue/")

    served = queue.json()["cards"][0]["question"]
    assert served["key"] == question.key
    assert (served["lesson"], served["section"]) == (None, None)
    assert (served["category"], served["level"], served["kind"]) == (
        question.category.slug,
        "mid",
        "free_text",
    )
    assert "model_answer_html" not in served
    assert "key_points" not in served
    # Answered from the queue the usual way: a reveal, then a rating against it.
    reveal = api.post(f"/api/v1/questions/{question.pk}/reveal/", {}).json()
    answered = api.post(
        f"/api/v1/questions/{question.pk}/answers/",
        {"response": "Attention, MLP.", "self_rating": "good", "reveal": reveal["id"]},
    )
    assert answered.status_code == 201, answered.text
    assert Card.objects.get(user=learner, question=question).reps == 2


def test_a_due_bank_card_comes_while_a_lessons_new_questions_wait():
    """With a lesson's new questions waiting (read a lesson at a time on PostgreSQL), due
    cards come: the bank's, which have no lesson, and the waiting lesson's."""
    now = timezone.now()
    user = UserFactory(timezone="UTC", day_starts_at_hour=(now.hour + 12) % 24)
    answered_today = QuestionFactory()
    sibling = QuestionFactory(lesson=answered_today.lesson)
    reviewed = {"state": "review", "stability": 3, "difficulty": 5, "reps": 2}
    Card.objects.create(
        user=user, question=sibling, due=now - timedelta(1), seed=1,
        last_review=now - timedelta(4), **reviewed,
    )  # fmt: skip
    Answer.objects.create(
        user=user, question=answered_today, question_version=1, status="correct", score=1,
        created_at=now - timedelta(minutes=10),
    )  # fmt: skip
    bank = BankQuestionFactory()
    bank_card = Card.objects.create(
        user=user, question=bank, due=now - timedelta(2), seed=2,
        last_review=now - timedelta(5), **reviewed,
    )  # fmt: skip

    found = review_queue(user=user, now=now, limit=10)

    assert [c.question_id for c in found.cards] == [bank.pk, sibling.pk]  # lowest recall first
    assert bank_card.pk == found.cards[0].pk


# --- the learner's days ------------------------------------------------------------------------


def test_interview_practice_counts_in_the_learners_days_under_no_course(api, learner):
    question, course_question = BankQuestionFactory(), QuestionFactory()
    assert practise(api, question, {"covered_key_points": [0, 1, 2, 3]}).status_code == 201
    assert (
        api.post(
            f"/api/v1/questions/{course_question.pk}/answers/", {"response": "8e6"}
        ).status_code
        == 201
    )
    today = study_date_at(user=learner, moment=timezone.now())

    days = {d.course_id: (d.day, d.answers, d.reviews, d.correct) for d in StudyDay.objects.all()}
    totals = {t.course_id: (t.reviews, t.run_start, t.run_end) for t in StudyTotal.objects.all()}

    assert days == {None: (today, 1, 1, 1), course_question.lesson.course_id: (today, 1, 1, 1)}
    assert totals[None] == (1, today, today)
    stats = learner_stats(user=learner, now=timezone.now())
    assert (stats.reviews_today, stats.streak_days, stats.heatmap[-1]["reviews"]) == (2, 1, 2)

    # A second practice adds to the same day's row; a rebuild from the log agrees.
    assert practise(api, question, {"covered_key_points": []}).status_code == 201
    kept = sorted(
        StudyDay.objects.values_list("course_id", "day", "answers", "reviews", "correct"), key=str
    )
    rebuild_everyone()
    assert (
        sorted(
            StudyDay.objects.values_list("course_id", "day", "answers", "reviews", "correct"),
            key=str,
        )
        == kept
    )
    assert StudyDay.objects.get(course=None).reviews == 2

    # Undo takes the last practice back from the bank's day.
    assert api.post("/api/v1/reviews/undo/", {}).status_code == 200
    assert StudyDay.objects.get(course=None).reviews == 1


def test_a_bank_card_reviewed_offline_is_synced(api, learner):
    """As a course's free-text question: rated against a reveal of its model answer."""
    question = BankQuestionFactory()
    assert practise(api, question, {"covered_key_points": [0, 1, 2, 3]}).status_code == 201
    reveal = api.post(f"/api/v1/questions/{question.pk}/reveal/", {}).json()["id"]
    at = timezone.now() + timedelta(seconds=1)

    synced = api.post(
        "/api/v1/reviews/sync/",
        {
            "reviews": [
                {
                    "client_id": str(uuid.uuid4()),
                    "question": question.pk,
                    "reviewed_at": at.isoformat(),
                    "response": "Said on the train.",
                    "self_rating": "good",
                    "reveal": reveal,
                }
            ]
        },
    )

    assert synced.status_code == 200, synced.text
    assert [r["status"] for r in synced.json()["results"]] == ["applied"]
    assert Card.objects.get(user=learner, question=question).reps == 2
    assert StudyDay.objects.get(course=None).reviews == 2
