"""The daily queue: due first, then new, within the learner's limits in the learner's day."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import services as account_services
from quizzes.models import Question
from reviews.days import day_start
from reviews.models import Answer, Card
from reviews.queue import review_queue
from tests.factories import LessonFactory, QuestionFactory, SectionFactory, UserFactory

pytestmark = pytest.mark.django_db


def card(user, question, *, due, state="review", **fields):
    reviewed = state != "new"
    defaults = {
        "stability": 5.0 if reviewed else None,
        "difficulty": 5.0 if reviewed else None,
        "last_review": due - timedelta(days=5) if reviewed else None,
        "reps": 3 if reviewed else 0,
        "seed": 1,
    }
    return Card.objects.create(
        user=user, question=question, state=state, due=due, **{**defaults, **fields}
    )


@pytest.mark.parametrize(
    ("zone", "hour", "now", "expected"),
    [
        ("UTC", 4, "2026-03-10T03:59:00+00:00", "2026-03-09T04:00:00+00:00"),
        ("UTC", 4, "2026-03-10T04:00:00+00:00", "2026-03-10T04:00:00+00:00"),
        # 03:30 in Tokyo is still the day that began at 04:00 the morning before.
        ("Asia/Tokyo", 4, "2026-03-09T18:30:00+00:00", "2026-03-08T19:00:00+00:00"),
        ("Asia/Tokyo", 0, "2026-03-09T15:30:00+00:00", "2026-03-09T15:00:00+00:00"),
        # Los Angeles is on daylight time (UTC-7) from 8 March 2026, standard (UTC-8) before.
        ("America/Los_Angeles", 4, "2026-03-10T10:59:00+00:00", "2026-03-09T11:00:00+00:00"),
        ("America/Los_Angeles", 4, "2026-03-10T11:30:00+00:00", "2026-03-10T11:00:00+00:00"),
        ("America/Los_Angeles", 4, "2026-03-08T10:00:00+00:00", "2026-03-07T12:00:00+00:00"),
    ],
)
def test_the_day_starts_at_the_learners_hour_in_their_zone(zone, hour, now, expected):
    user = UserFactory(timezone=zone, day_starts_at_hour=hour)

    start = day_start(user=user, now=datetime.fromisoformat(now))

    assert start == datetime.fromisoformat(expected)
    assert start.astimezone(UTC) == datetime.fromisoformat(expected)


def test_due_cards_come_first_most_overdue_first_then_new_in_lesson_order():
    user = UserFactory()
    now = timezone.now()
    first, second = LessonFactory(number=1), LessonFactory(number=2)
    late = card(user, QuestionFactory(lesson=second), due=now - timedelta(days=3))
    later = card(user, QuestionFactory(lesson=second), due=now - timedelta(days=9))
    soon = card(user, QuestionFactory(lesson=first), due=now + timedelta(minutes=10))
    card(user, QuestionFactory(lesson=first), due=now + timedelta(days=2))
    new_a = QuestionFactory(lesson=first, position=1)
    new_b = QuestionFactory(lesson=second, position=1)

    found = review_queue(user=user, now=now, limit=10)

    assert [c.pk for c in found.cards] == [later.pk, late.pk, soon.pk]
    assert [q.pk for q in found.new_questions] == [new_a.pk, new_b.pk]
    assert (found.due_count, found.new_count) == (3, 2)


def test_overdue_cards_come_lowest_chance_of_recall_first_then_the_learn_ahead_ones():
    user = UserFactory()
    now = timezone.now()

    def reviewed(due, stability, days_since):
        return card(
            user, QuestionFactory(), due=due, stability=stability,
            last_review=now - timedelta(days=days_since),
        )  # fmt: skip

    # Five days overdue, but well known: recall is still near 0.9.
    sturdy = reviewed(now - timedelta(days=5), stability=100.0, days_since=105)
    # One day overdue on a one-day memory: recall has fallen much further.
    fragile = reviewed(now - timedelta(days=1), stability=1.0, days_since=3)
    ahead = reviewed(now + timedelta(minutes=10), stability=2.5, days_since=3)

    found = review_queue(user=user, now=now, limit=10)

    assert [c.pk for c in found.cards] == [fragile.pk, sturdy.pk, ahead.pk]
    assert found.due_count == 3


@pytest.mark.parametrize("waiting", [False, True], ids=["no lesson waiting", "a lesson waiting"])
def test_a_review_card_is_due_all_day_a_learning_one_within_the_learn_ahead_a_day_apart_at_its_time(
    waiting,
):
    # The learner's day began at 04:00 UTC and ends at 04:00 tomorrow.
    user = UserFactory(timezone="UTC", day_starts_at_hour=4)
    now = datetime(2026, 3, 10, 9, tzinfo=UTC)
    lesson = LessonFactory()

    def at(text):
        return datetime.fromisoformat(f"2026-03-{text}:00+00:00")

    overdue = card(user, QuestionFactory(lesson=lesson), due=at("09T20:00"))
    tonight = card(user, QuestionFactory(lesson=lesson), due=at("10T20:00"))
    last_thing = card(user, QuestionFactory(lesson=lesson), due=at("11T03:59"))
    card(user, QuestionFactory(lesson=lesson), due=at("11T04:00"))  # tomorrow's
    step = card(user, QuestionFactory(lesson=lesson), due=now + timedelta(minutes=10),
                state="learning", step=1, last_review=now - timedelta(minutes=1))  # fmt: skip
    card(user, QuestionFactory(lesson=lesson), due=now + timedelta(minutes=30),
         state="relearning", step=0, last_review=now - timedelta(minutes=1))  # fmt: skip
    if waiting:  # another lesson's card answered today: that lesson waits, this one doesn't
        other = card(user, QuestionFactory(lesson=LessonFactory()), due=at("12T09:00"))
        Answer.objects.create(
            user=user, question=other.question, question_version=1, status="correct", score=1,
            rating=3, card=other, created_at=now - timedelta(hours=1),
        )  # fmt: skip

    # Cards a day apart are due at their time, not all day nor within the learn-ahead:
    # reviewed earlier, their interval would count as no whole day. (The one due a minute ago
    # has the lowest chance of recall of the overdue ones, so it comes first.)
    def a_day_apart(due):
        return card(user, QuestionFactory(lesson=lesson), due=due, stability=0.8,
                    last_review=due - timedelta(days=1))  # fmt: skip

    next_day = a_day_apart(now - timedelta(minutes=1))
    a_day_apart(now + timedelta(minutes=5))
    a_day_apart(at("10T20:05"))

    found = review_queue(user=user, now=now, limit=10)

    assert [c.pk for c in found.cards] == [
        next_day.pk, overdue.pk, step.pk, tonight.pk, last_thing.pk
    ]  # fmt: skip
    assert found.due_count == 5


def test_the_due_count_is_capped_by_the_days_review_limit_above_the_ranked_few():
    user = UserFactory(reviews_per_day=300)
    now = timezone.now()
    Card.objects.bulk_create(
        Card(
            user=user, question=q, state="review", due=now - timedelta(minutes=i),
            stability=3.0, difficulty=5.0, last_review=now - timedelta(days=4), seed=i,
        )
        for i, q in enumerate(QuestionFactory.create_batch(350))
    )  # fmt: skip

    found = review_queue(user=user, now=now, limit=5)

    assert found.due_count == 300
    assert len(found.cards) == 5


def test_answering_a_question_whose_card_was_made_ahead_steps_that_card(client):
    user = UserFactory()
    question = QuestionFactory()
    review_queue(user=user, now=timezone.now(), limit=5)
    made = Card.objects.get(user=user, question=question)
    _, key = account_services.token_create(user=user)

    response = client.post(
        f"/api/v1/questions/{question.pk}/answers/",
        {"response": "8e6", "duration_ms": 20_000},
        content_type="application/json",
        headers={"Authorization": f"Token {key}", "X-Forwarded-Proto": "https"},
    )

    assert response.status_code == 201, response.content
    assert response.json()["review"]["card_id"] == made.pk
    stepped = Card.objects.get(user=user, question=question)
    assert (stepped.pk, stepped.state, stepped.reps) == (made.pk, "learning", 1)
    assert Answer.objects.get().card_before["state"] == "new"
    found = review_queue(user=user, now=timezone.now(), limit=5)
    assert (found.new_today, found.new_questions) == (1, [])


def test_daily_limits_count_what_was_done_today():
    user = UserFactory(new_cards_per_day=2, reviews_per_day=1)
    now = timezone.now()
    reviewed = QuestionFactory()
    Answer.objects.create(
        user=user, question=reviewed, question_version=1, status="correct", score=1,
        card_before={"state": "new"},
    )  # fmt: skip
    card(user, QuestionFactory(), due=now - timedelta(days=1))
    card(user, QuestionFactory(), due=now - timedelta(days=1))
    QuestionFactory.create_batch(3)

    found = review_queue(user=user, now=now, limit=10)

    assert len(found.cards) == 0  # one review allowed, one done
    assert len(found.new_questions) == 1  # two new allowed, one introduced
    assert (found.reviews_today, found.new_today) == (1, 1)


def test_suspended_cards_stay_out_and_new_siblings_of_todays_answers_wait():
    user = UserFactory()
    now = timezone.now()
    lesson = LessonFactory()
    answered = QuestionFactory(lesson=lesson)
    sibling = card(user, QuestionFactory(lesson=lesson), due=now - timedelta(days=1))
    card(user, QuestionFactory(), due=now - timedelta(days=1), suspended=True)
    QuestionFactory(lesson=lesson)  # a new sibling
    Answer.objects.create(
        user=user, question=answered, question_version=1, status="correct", score=1
    )

    found = review_queue(user=user, now=now, limit=10)

    # A due sibling comes: held back a day, it would be recalled less.
    assert [c.pk for c in found.cards] == [sibling.pk]
    assert all(q.lesson_id != lesson.pk for q in found.new_questions)


def queue_queries(client, user) -> tuple[int, int]:
    """The queries of the learner's first queue (which makes their new cards) and of the next."""
    _, key = account_services.token_create(user=user)
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(
                "/api/v1/reviews/queue/?limit=5",
                headers={"Authorization": f"Token {key}", "X-Forwarded-Proto": "https"},
            )
        assert response.status_code == 200, response.content
        counts.append(len(queries))
    return counts[0], counts[1]


def deck(size: int):
    """A learner with `size` review cards, all due, and a few new questions beside them."""
    user = UserFactory()
    lesson = LessonFactory()
    section = SectionFactory(lesson=lesson)
    now = timezone.now()
    questions = Question.objects.bulk_create(
        Question(
            key=f"{user.username}-{i}", kind="numeric", topic="mlp", difficulty=2,
            lesson=lesson, section=section, position=i, prompt_markdown="?",
            prompt_html="<p>?</p>", answer=1, version=1,
        )
        for i in range(size + 3)
    )  # fmt: skip
    Card.objects.bulk_create(
        Card(
            user=user, question=q, state="review", due=now - timedelta(minutes=i),
            stability=3.0, difficulty=5.0, last_review=now - timedelta(days=4), seed=i,
        )
        for i, q in enumerate(questions[:size])
    )  # fmt: skip
    return user


def test_the_queue_costs_the_same_for_10_cards_as_for_5000(client):
    (first_small, small), (first_large, large) = [
        queue_queries(client, deck(size)) for size in (10, 5_000)
    ]

    assert small == large, (small, large)
    assert small <= 10, small
    # Making the three missing new cards costs a few queries more, once; so does reading the
    # served questions with their choices into what is kept for the content revision (two
    # for the due cards' questions, two for the new ones').
    assert first_small == first_large, (first_small, first_large)
    assert first_small <= small + 6 + 4, (first_small, small)


@pytest.mark.django_db(transaction=True)
def test_the_queue_over_http_serves_each_question_ready_to_answer(api):
    user = UserFactory()
    api.authenticate(user)
    generated = QuestionFactory(generator="relu_neuron", answer=None, tolerance=None, mistakes=[])
    card(user, QuestionFactory(), due=timezone.now() - timedelta(days=1))

    body = api.get("/api/v1/reviews/queue/").json()

    assert (body["due_count"], body["new_count"]) == (1, 1)
    due, new = body["cards"]
    assert due["state"] == "review"
    assert due["card_id"] is not None
    assert (new["card_id"], new["question"]["id"]) == (None, generated.pk)
    assert new["question"]["variant"]["token"]
    answered = api.post(
        f"/api/v1/questions/{generated.pk}/answers/",
        {"response": "0", "variant": new["question"]["variant"]["token"]},
    )
    assert answered.json()["review"]["card_id"] == Card.objects.get(question=generated).pk


def test_a_lesson_whose_new_questions_wait_leaves_the_other_lessons_new_ones_to_come():
    """Read a lesson at a time (on PostgreSQL): the waiting lesson's new questions stay out,
    the other lessons' new ones come in their order, and every lesson's due cards come, most
    overdue first (the waiting lesson's as well)."""
    now = timezone.now()
    # A study day begun hours ago, so the review ten minutes ago is today's at any hour.
    user = UserFactory(timezone="UTC", day_starts_at_hour=(now.hour + 12) % 24)
    waiting, other, third = (
        LessonFactory(number=1),
        LessonFactory(number=2),
        LessonFactory(number=3),
    )
    answered = card(user, QuestionFactory(lesson=waiting), due=now - timedelta(minutes=5))
    answered.last_review = now - timedelta(minutes=10)
    answered.save()
    Answer.objects.create(
        user=user, question=answered.question, question_version=1, status="correct", score=1,
        created_at=now - timedelta(minutes=10),
    )  # fmt: skip
    for days in range(1, 30):
        card(user, QuestionFactory(lesson=waiting), due=now - timedelta(days=days))
    later = card(user, QuestionFactory(lesson=other), due=now - timedelta(hours=1))
    sooner = card(user, QuestionFactory(lesson=third), due=now - timedelta(days=2))
    new_first = QuestionFactory(lesson=other, position=1)
    QuestionFactory(lesson=waiting, position=0)  # new, but its lesson waits

    found = review_queue(user=user, now=now, limit=40)

    assert {later.pk, sooner.pk, answered.pk} <= {c.pk for c in found.cards}
    assert found.due_count == 32
    assert found.cards[0].question.lesson_id == waiting.pk  # 29 days overdue
    assert found.new_questions[0] == new_first
    assert all(q.lesson_id != waiting.pk for q in found.new_questions)


@pytest.mark.parametrize("plan", ["free", "pro"])
def test_with_a_lesson_waiting_the_other_lessons_keep_the_same_rules(plan):
    """Read a lesson at a time, the queue leaves out what the one read leaves out: for a free
    learner the cards of Pro questions, and for anyone the new cards of archived questions
    and of archived lessons; due cards of an archived question still come."""
    now = timezone.now()
    user = UserFactory(timezone="UTC", day_starts_at_hour=(now.hour + 12) % 24, plan=plan)
    waiting, other, gone = (LessonFactory(number=n) for n in (1, 2, 3))
    free = SectionFactory(lesson=other, access="free")
    pro = SectionFactory(lesson=other, access="pro")
    due = {
        "free": card(user, QuestionFactory(lesson=other, section=free), due=now - timedelta(1)),
        "pro": card(user, QuestionFactory(lesson=other, section=pro), due=now - timedelta(2)),
        "archived": card(
            user,
            QuestionFactory(lesson=other, section=free, archived_at=now),
            due=now - timedelta(3),
        ),
    }
    new = {
        "free": QuestionFactory(lesson=other, section=free, position=1),
        "pro": QuestionFactory(lesson=other, section=pro, position=2),
    }
    # New cards made ahead before their question or lesson was archived.
    card(user, QuestionFactory(lesson=other, section=free, position=3, archived_at=now),
         due=now, state="new")  # fmt: skip
    gone_question = QuestionFactory(lesson=gone, position=1)
    card(user, gone_question, due=now, state="new")
    gone.archived_at = now
    gone.save()
    sibling = card(user, QuestionFactory(lesson=waiting), due=now - timedelta(days=4))

    def queued():
        found = review_queue(user=user, now=now, limit=20)
        cards = {c.question_id for c in found.cards} - {sibling.question_id}
        return cards, {q.pk for q in found.new_questions}, found.due_count, found.new_count

    at_once = queued()
    Answer.objects.create(
        user=user, question=sibling.question, question_version=1, status="correct", score=1,
        mode="review", created_at=now - timedelta(minutes=10),
    )  # fmt: skip
    with CaptureQueriesContext(connection) as reads:
        lesson_at_a_time = queued()

    opened = ["free", "archived"] + (["pro"] if plan == "pro" else [])
    expected_new = {new["free"].pk} | ({new["pro"].pk} if plan == "pro" else set())
    assert at_once[:2] == ({due[k].question_id for k in opened}, expected_new)
    assert at_once[2:] == (len(opened) + 1, len(expected_new))  # the sibling due as well
    assert lesson_at_a_time == at_once  # the sibling answered: still due, its card unstepped
    if connection.vendor == "postgresql":
        merged = [q["sql"] for q in reads.captured_queries if ") AS merged " in q["sql"]]
        assert len(merged) == 1  # the new cards, a read per lesson
        assert all('"quizzes_question"' not in sql for sql in merged)  # no join to plan
