"""Each learner's deck: new cards made ahead, once, in course order, for live questions only."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizzes.services import bank_revision_bump
from reviews.cards import card_action, new_card
from reviews.deck import deck_refresh
from reviews.models import Card, Deck
from reviews.queue import review_queue
from reviews.stats import learner_stats
from tests.factories import LessonFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


def new_cards(user):
    return list(
        Card.objects.filter(user=user, state="new")
        .order_by("lesson_number", "position", "question_id")
        .values_list("question_id", flat=True)
    )


def test_the_first_queue_makes_a_new_card_for_each_live_question_in_course_order():
    user = UserFactory()
    first, second = LessonFactory(number=1), LessonFactory(number=2)
    later = QuestionFactory(lesson=second, position=1)
    earlier = QuestionFactory(lesson=first, position=2)
    earliest = QuestionFactory(lesson=first, position=1)
    QuestionFactory(lesson=first, archived_at=timezone.now())
    QuestionFactory(lesson=LessonFactory(archived_at=timezone.now()))

    found = review_queue(user=user, now=timezone.now(), limit=10)

    assert new_cards(user) == [earliest.pk, earlier.pk, later.pk]
    assert [q.pk for q in found.new_questions] == [earliest.pk, earlier.pk, later.pk]
    assert found.new_count == 3
    made = Card.objects.get(user=user, question=earliest)
    assert (made.reps, made.stability, made.last_review, made.reset_at) == (0, None, None, None)
    assert made.seed == new_card(user=user, question=earliest).seed


def test_refreshing_a_current_deck_is_one_query_and_makes_nothing():
    user = UserFactory()
    QuestionFactory.create_batch(3)
    now = timezone.now()
    deck_refresh(user=user, now=now)

    with CaptureQueriesContext(connection) as queries:
        deck_refresh(user=user, now=now)

    assert len(queries) == 1
    assert Card.objects.filter(user=user).count() == 3


def test_a_question_added_later_gets_its_card_and_existing_cards_are_left_alone():
    user = UserFactory()
    now = timezone.now()
    kept = QuestionFactory()
    deck_refresh(user=user, now=now)
    Card.objects.filter(user=user, question=kept).update(seed=7)
    added = QuestionFactory()

    deck_refresh(user=user, now=now + timedelta(minutes=1))

    assert set(new_cards(user)) == {kept.pk, added.pk}
    assert Card.objects.get(user=user, question=kept).seed == 7
    assert Deck.objects.get(user=user).questions_through == added.pk


def test_a_new_bank_revision_brings_back_unarchived_questions_and_the_new_order():
    user = UserFactory()
    now = timezone.now()
    first, second = LessonFactory(number=1), LessonFactory(number=2)
    a = QuestionFactory(lesson=first, position=1)
    b = QuestionFactory(lesson=second, position=1)
    hidden = QuestionFactory(lesson=second, position=2, archived_at=now)
    deck_refresh(user=user, now=now)
    assert new_cards(user) == [a.pk, b.pk]
    # A content load swaps the lessons and restores the archived question.
    first.number, second.number = 3, 1
    first.save(update_fields=["number"])
    second.save(update_fields=["number"])
    hidden.archived_at = None
    hidden.save(update_fields=["archived_at"])
    bank_revision_bump()

    deck_refresh(user=user, now=now)

    assert new_cards(user) == [b.pk, hidden.pk, a.pk]


def test_questions_archived_after_the_cards_were_made_stay_out_of_queue_and_stats():
    user = UserFactory(new_cards_per_day=10)
    now = timezone.now()
    lesson = LessonFactory()
    live = QuestionFactory()
    gone = QuestionFactory()
    in_gone_lesson = QuestionFactory(lesson=lesson)
    deck_refresh(user=user, now=now)
    gone.archived_at = now
    gone.save(update_fields=["archived_at"])
    lesson.archived_at = now
    lesson.save(update_fields=["archived_at"])

    found = review_queue(user=user, now=now, limit=10)

    assert [q.pk for q in found.new_questions] == [live.pk]
    assert found.new_count == 1
    assert learner_stats(user=user, now=now).new_available == 1
    assert Card.objects.filter(user=user, question=in_gone_lesson).exists()


def test_a_forgotten_card_is_new_again_at_its_place_in_the_course():
    user = UserFactory()
    now = timezone.now()
    first = QuestionFactory(lesson=LessonFactory(number=1), position=1)
    second = QuestionFactory(lesson=LessonFactory(number=2), position=4)
    card = Card.objects.create(
        user=user, question=second, state="review", due=now + timedelta(days=3),
        stability=5.0, difficulty=5.0, last_review=now - timedelta(days=2), reps=3, seed=1,
    )  # fmt: skip

    card_action(card=card, action="forget", now=now)
    found = review_queue(user=user, now=now, limit=10)

    card.refresh_from_db()
    assert (card.state, card.reset_at, card.lesson_number, card.position) == ("new", now, 2, 4)
    assert [q.pk for q in found.new_questions] == [first.pk, second.pk]
    assert found.cards == []


def test_two_learners_decks_are_their_own():
    one, two = UserFactory(), UserFactory()
    question = QuestionFactory()
    deck_refresh(user=one, now=timezone.now())

    assert Card.objects.filter(user=one, question=question).count() == 1
    assert not Card.objects.filter(user=two).exists()
    assert not Deck.objects.filter(user=two).exists()


def test_a_question_moved_to_another_lesson_takes_its_cards_with_it():
    user = UserFactory()
    now = timezone.now()
    first, second = LessonFactory(number=1), LessonFactory(number=2)
    moved, stays = QuestionFactory(lesson=first), QuestionFactory(lesson=first)
    deck_refresh(user=user, now=now)
    reviewed = Card.objects.get(user=user, question=stays)
    reviewed.state, reviewed.stability, reviewed.last_review = "review", 3.0, now
    reviewed.save()
    # Content moves both questions to the second lesson: the new card and the reviewed one.
    Card.objects.filter(user=user).update(lesson=first)
    for question in (moved, stays):
        question.lesson = second
        question.save(update_fields=["lesson"])
    bank_revision_bump()

    deck_refresh(user=user, now=now)

    lessons = dict(Card.objects.filter(user=user).values_list("question_id", "lesson_id"))
    assert lessons == {moved.pk: second.pk, stays.pk: second.pk}
    assert Card.objects.get(user=user, question=moved).lesson_number == 2
