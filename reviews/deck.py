"""Each learner's deck: a card for every live question, the unseen ones made ahead as new.

With new cards as rows, the queue reads them from an index in course order, as it reads due
cards, instead of setting every question against every card the learner has. Cards are made
when the deck falls behind the bank: a question newer than the newest the deck was built from
(made only for those), or a new bank revision, bumped when loaded content changes what is asked
or its order (every missing card is made and the order of the new ones refreshed). Otherwise
checking costs one query. Making is idempotent: a card that exists already is left alone, so
two requests building at once, or a build racing an answer, make each card once.

Archived questions and lessons get no cards, and the queue leaves out the new cards of those
archived since, so archiving needs no rebuild.
"""

from __future__ import annotations

import functools
from datetime import datetime

from django.db import connections, router, transaction
from django.db.models import Case, Exists, F, OuterRef, Q, Subquery, When

from accounts.models import User
from quizzes.models import BankRevision, Question
from reviews.cards import card_seed
from reviews.models import Card, Deck

BATCH = 2_000


@functools.cache
def _stamp_sql(alias: str) -> str:
    quote = connections[alias].ops.quote_name
    revisions, questions = quote(BankRevision._meta.db_table), quote(Question._meta.db_table)
    deck = quote(Deck._meta.db_table)
    return (
        f"SELECT COALESCE((SELECT {quote('number')} FROM {revisions} WHERE {quote('id')} = 1), 0),"
        f" COALESCE((SELECT MAX({quote('id')}) FROM {questions}), 0),"
        f" {deck}.{quote('revision')}, {deck}.{quote('questions_through')}"
        f" FROM (SELECT 1 AS {quote('one')}) AS {quote('one')}"
        f" LEFT JOIN {deck} ON {deck}.{quote('user_id')} = %s"
    )


def deck_refresh(*, user: User, now: datetime) -> None:
    """Makes the learner's missing new cards, if the deck is behind the bank (see above).

    The check is one query on every queue and stats request, so its SQL is written once
    rather than compiled each time."""
    connection = connections[router.db_for_read(Deck)]
    with connection.cursor() as cursor:
        cursor.execute(_stamp_sql(connection.alias), [user.pk])
        stamp = cursor.fetchone()
    revision, newest, built_revision, built_through = stamp
    if built_revision == revision and built_through is not None and built_through >= newest:
        return
    rebuild = built_revision != revision
    with transaction.atomic():
        missing = (
            Question.objects.live()
            .filter(lesson__archived_at__isnull=True)
            .exclude(Exists(Card.objects.filter(user=user, question=OuterRef("pk"))))
            .order_by()
        )
        if not rebuild:
            missing = missing.filter(pk__gt=built_through)
        made = [
            Card(
                user=user,
                question_id=question_id,
                seed=card_seed(user_id=user.pk, question_id=question_id),
                due=now,
                lesson_id=lesson_id,
                lesson_number=lesson_number,
                position=position,
            )
            for question_id, lesson_id, lesson_number, position in missing.values_list(
                "pk", "lesson_id", "lesson__number", "position"
            )
        ]
        Card.objects.bulk_create(made, batch_size=BATCH, ignore_conflicts=True)
        if rebuild:
            _reorder_new(user=user)
        Deck.objects.bulk_create(
            [Deck(user=user, revision=revision, questions_through=newest, built_at=now)],
            update_conflicts=True,
            unique_fields=["user"],
            update_fields=["revision", "questions_through", "built_at"],
        )


def _reorder_new(*, user: User) -> None:
    """Copies each new card's place in the course from its question, which may have moved,
    and every card's lesson, where its question moved to another."""
    question = Question.objects.filter(pk=OuterRef("question_id")).order_by()
    new = Q(state=Card.State.NEW)
    # The interview bank's cards have no lesson, and no place among the new ones.
    Card.objects.filter(
        new | ~Q(lesson_id=F("question__lesson_id")), user=user, lesson__isnull=False
    ).update(
        lesson_id=Subquery(question.values("lesson_id")[:1]),
        lesson_number=Case(
            When(new, then=Subquery(question.values("lesson__number")[:1])),
            default=F("lesson_number"),
        ),
        position=Case(
            When(new, then=Subquery(question.values("position")[:1])), default=F("position")
        ),
    )
