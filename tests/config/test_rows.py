"""The hot path's hand-written reads give the instances the ORM gives, and its write writes what
`save(update_fields=...)` would (on SQLite and on PostgreSQL, whose converters differ)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import BooleanField, Q
from django.db.models.expressions import RawSQL
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox.models import AuthToken
from knox.settings import CONSTANTS

from accounts.auth import tokens_by_key
from accounts.services import token_create
from config import rows
from reviews.cards import card_locked
from reviews.models import Answer, Card
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


def fields_of(instance, names):
    return {name: getattr(instance, name) for name in names}


def same_as_the_orm(read, expected, *, deferred=frozenset()):
    names = [f.attname for f in type(expected)._meta.concrete_fields]
    assert read.get_deferred_fields() == set(deferred)
    loaded = [name for name in names if name not in deferred]
    assert fields_of(read, loaded) == fields_of(expected, loaded)
    assert [type(getattr(read, n)) for n in loaded] == [type(getattr(expected, n)) for n in loaded]
    assert read._state.adding is False
    assert read._state.db == "default"


def test_the_tokens_by_key_are_knoxs_tokens_with_their_user():
    user = UserFactory()
    token, key = token_create(user=user)
    token_create(user=UserFactory())  # another's, under another key

    [read] = tokens_by_key(key[: CONSTANTS.TOKEN_KEY_LENGTH])

    expected = AuthToken.objects.select_related("user").get(pk=token.pk)
    same_as_the_orm(read, expected)
    same_as_the_orm(read.user, expected.user)
    assert tokens_by_key("no-such-key") == []


def test_the_locked_card_is_the_orms_card_and_says_whether_the_variant_was_answered():
    user, question = UserFactory(), QuestionFactory()
    card = Card.objects.create(user=user, question=question, due=timezone.now(), seed=7)
    Answer.objects.create(
        user=user,
        question=question,
        question_version=1,
        mode=Answer.Mode.PRACTICE,
        variant_nonce="used-nonce",
        status="correct",
        score=1.0,
    )

    with transaction.atomic():
        read, answered = card_locked(user=user, question=question, variant_nonce="used-nonce")
        same_as_the_orm(read, Card.objects.get(pk=card.pk))
        assert answered is True
        assert card_locked(user=user, question=question, variant_nonce="fresh") == (read, False)
        assert card_locked(user=user, question=question) == (read, False)
        # Without a card, the nonce is still looked for.
        other = QuestionFactory()
        assert card_locked(user=user, question=other, variant_nonce="used-nonce") == (None, True)
        assert card_locked(user=user, question=other, variant_nonce="fresh") == (None, False)


@pytest.mark.django_db(transaction=True)
def test_the_card_is_locked_only_inside_a_transaction():
    user, question = UserFactory(), QuestionFactory()

    with pytest.raises(TransactionManagementError):
        card_locked(user=user, question=question)


def test_update_writes_the_named_fields_as_save_does_and_nothing_else():
    user, question = UserFactory(), QuestionFactory()
    card = Card.objects.create(user=user, question=question, due=timezone.now(), seed=7)
    due = timezone.now() + timedelta(days=3)
    card.due, card.stability, card.state, card.seed = due, 4.5, Card.State.REVIEW, 8

    rows.update(card, ["due", "stability", "state"])

    stored = Card.objects.get(pk=card.pk)
    assert (stored.due, stored.stability, stored.state) == (due, 4.5, Card.State.REVIEW)
    assert stored.seed == 7  # not named, not written


def test_update_of_a_row_not_in_its_table_fails_loudly():
    card = Card(pk=10**9, due=timezone.now(), seed=1)

    with pytest.raises(DatabaseError, match="not in its table"):
        rows.update(card, ["due"])


def test_columns_refuse_to_defer_what_the_model_does_not_have():
    with pytest.raises(ValueError, match="no columns"):
        rows.Columns(Card, defer=["not_a_field"])


def test_insert_stores_what_save_stores_and_gives_the_primary_key():
    user, question = UserFactory(), QuestionFactory()
    card = Card.objects.create(user=user, question=question, due=timezone.now(), seed=7)

    def answer(**fields):
        return Answer(
            user=user, question=question, question_version=2, mode=Answer.Mode.REVIEW,
            variant_seed=41, response="0.5", choice_ids=[3, 1], status="partial", score=0.5,
            duration_ms=4_000, card=card, rating=2, card_before={"state": "new", "step": 0},
            card_after={"state": "learning", "due": "2026-12-02T06:33:36+00:00"},
            received_at=timezone.now(), **fields,
        )  # fmt: skip

    written, saved = answer(), answer()
    rows.insert(written)
    saved.save()

    assert written.pk is not None
    assert written.pk != saved.pk
    assert written._state.adding is False
    assert written.created_at is not None  # auto_now_add, as save() sets it
    names = [f.attname for f in Answer._meta.concrete_fields if f.attname not in ("id",)]
    stored, expected = Answer.objects.get(pk=written.pk), Answer.objects.get(pk=saved.pk)
    same = {n: getattr(stored, n) for n in names if n not in ("created_at", "received_at")}
    assert same == {n: getattr(expected, n) for n in same}
    assert stored.created_at == written.created_at


def test_insert_refuses_an_instance_that_has_its_key():
    card = Card.objects.create(
        user=UserFactory(), question=QuestionFactory(), due=timezone.now(), seed=1
    )

    with pytest.raises(ValueError, match="already has its primary key"):
        rows.insert(card)


def _cards_of(shape_seed, *, user_id, after, slug, ids):
    """A read with a value of each kind Prepared fills in, and a shape that changes its SQL
    (a list is one parameter: an array on PostgreSQL)."""
    among = (
        RawSQL("reviews_card.question_id = ANY(%s::bigint[])", (ids,), BooleanField())
        if connection.vendor == "postgresql"
        else Q(question_id__in=ids)
    )
    cards = Card.objects.filter(among, user_id=user_id, due__gt=after, question__lesson__slug=slug)
    if shape_seed:
        cards = cards.filter(seed__gt=0)
    return cards.order_by("pk").values_list("pk", "due", "seed")


def test_a_prepared_read_runs_the_querysets_own_sql_with_each_requests_values():
    prepared = rows.Prepared(_cards_of)
    now = timezone.now()
    first = {"user_id": 3, "after": now, "slug": "attention", "ids": [4, 5]}
    second = {"user_id": 9, "after": now - timedelta(days=2), "slug": "mlp", "ids": [6]}

    for shape in ((False,), (True,), (False,)):
        for values in (first, second):
            assert prepared.sql(shape, **values) == rows.compiled(_cards_of(*shape, **values))


def test_a_prepared_read_gives_the_querysets_rows_up_to_its_limit():
    user = UserFactory()
    questions = QuestionFactory.create_batch(3)
    now = timezone.now()
    cards = [
        Card.objects.create(user=user, question=q, due=now + timedelta(hours=n), seed=n + 1)
        for n, q in enumerate(questions)
    ]
    Card.objects.create(user=UserFactory(), question=questions[0], due=now, seed=1)  # another's
    prepared = rows.Prepared(_cards_of)
    slug = questions[0].lesson.slug
    values = {"user_id": user.pk, "after": now - timedelta(days=1), "slug": slug}
    ids = [q.pk for q in questions]

    mine = [c for c in cards if c.question.lesson.slug == slug]
    expected = [(c.pk, c.due, c.seed) for c in mine]
    assert prepared.fetch((True,), **values, ids=ids) == expected
    assert prepared.fetch((True,), **values, ids=ids, limit=1) == expected[:1]
    assert prepared.fetch((True,), **values, ids=[]) == []
    assert prepared.fetch((True,), **values, ids=ids) == list(_cards_of(True, **values, ids=ids))


def test_a_prepared_read_refuses_values_that_would_not_reach_its_sql_as_given():
    if connection.vendor != "postgresql":
        # Compiled each time elsewhere: nothing is stood in for, so nothing to refuse.
        assert (
            rows.Prepared(_cards_of).fetch(
                (True,), user_id=1, after=timezone.now(), slug="x", ids=[]
            )
            == []
        )
        return
    by_date = rows.Prepared(lambda *, day: Card.objects.filter(due__date=day).values_list("pk"))
    with pytest.raises(ValueError, match=r"\['day'\] do not reach the SQL"):
        by_date.sql(day=timezone.now())  # the ORM makes a date of it
    flagged = rows.Prepared(lambda *, on: Card.objects.filter(suspended=on).values_list("pk"))
    with pytest.raises(TypeError, match="part of the shape"):
        flagged.sql(on=True)
    listed = rows.Prepared(lambda *, ids: Card.objects.filter(pk__in=ids).values_list("pk"))
    with pytest.raises(ValueError, match="one parameter"):
        listed.sql(ids=[1, 2])  # `__in` makes a parameter of each
    naive = rows.Prepared(lambda *, at: Card.objects.filter(due__lt=at).values_list("pk"))
    with pytest.raises(TypeError, match="aware"):
        naive.sql(at=datetime(2026, 1, 1))


def test_a_prepared_read_converts_its_columns_as_the_queryset_does():
    user, question = UserFactory(), QuestionFactory()
    before = {"state": "new", "step": 0}
    Answer.objects.create(
        user=user, question=question, question_version=1, mode=Answer.Mode.REVIEW,
        status="correct", score=1.0, card_before=before, created_at=timezone.now(),
    )  # fmt: skip
    prepared = rows.Prepared(
        lambda *, user_id: Answer.objects.filter(user_id=user_id).values_list(
            "card_before", "score", "created_at"
        )
    )

    [row] = prepared.fetch(user_id=user.pk)

    assert row == next(iter(Answer.objects.filter(user=user).values_list(
        "card_before", "score", "created_at"
    )))  # fmt: skip
    assert row[0] == before  # a dict, not the JSON text the database sends


def _prepared_statements():
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def test_the_hot_paths_cursor_prepares_a_repeated_statement_on_postgresql(settings):
    user = UserFactory()
    token, key = token_create(user=user)
    sql = f"SELECT id FROM {Card._meta.db_table} WHERE user_id = %s AND seed > %s"
    if connection.vendor != "postgresql":
        # Elsewhere it is the connection's own cursor.
        with rows.cursor(connection) as cursor:
            cursor.execute(sql, [user.pk, -1])
            assert cursor.fetchall() == []
        return

    def run(times):
        for _ in range(times):
            with rows.cursor(connection) as cursor:
                cursor.execute(sql, [user.pk, -1])
                assert cursor.fetchall() == []

    settings.DB_PREPARED_STATEMENTS = False
    run(8)
    assert not any("seed > $2" in s for s in _prepared_statements())
    settings.DB_PREPARED_STATEMENTS = True
    with CaptureQueriesContext(connection) as seen:
        run(8)
    # Counted and logged like any other query, with its values.
    assert len(seen.captured_queries) == 8
    assert str(user.pk) in seen.captured_queries[-1]["sql"]
    assert any("seed > $2" in s for s in _prepared_statements())
    # The token's read, which every request makes, is prepared the same way.
    for _ in range(6):
        [read] = tokens_by_key(key[: CONSTANTS.TOKEN_KEY_LENGTH])
    assert read.pk == token.pk
    assert any('"token_key" = $1' in s for s in _prepared_statements())
    # The ORM's queries are bound in the client and never prepared.
    for _ in range(8):
        list(Card.objects.filter(user=user, seed__gt=-2))
    assert not any("-2" in s or '"seed" > $' in s for s in _prepared_statements())


@pytest.mark.django_db(transaction=True)
def test_a_prepared_write_that_fails_is_djangos_error_and_the_connection_goes_on():
    user, question = UserFactory(), QuestionFactory()
    card = Card.objects.create(user=user, question=question, due=timezone.now(), seed=7)
    for attempt in range(8):
        twin = Card(user=user, question=question, lesson_id=question.lesson_id, seed=attempt)
        twin.due = timezone.now()
        with pytest.raises(IntegrityError), transaction.atomic():
            rows.insert(twin)  # one card per learner and question
    # The statement that failed is still there to use: the next insert of it writes.
    again = QuestionFactory()
    other = Card(user=user, question=again, lesson_id=again.lesson_id, seed=1, due=timezone.now())
    rows.insert(other)
    assert Card.objects.filter(user=user).count() == 2
    assert Card.objects.get(pk=other.pk).seed == 1
    with transaction.atomic():  # and the card's read after them, on the same connection
        assert card_locked(user=user, question=question)[0] == card
