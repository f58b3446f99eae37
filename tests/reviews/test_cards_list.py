"""The card list a page at a time, by page number or read on from a cursor: both give the same
cards in the same order, filters hold, a bad cursor is a problem naming it, and the list's
own index serves it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from reviews.models import Card
from tests.conftest import assert_problem
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


@pytest.fixture
def deck(learner):
    """23 seen cards, three of them due at one instant (ties the cursor must keep apart), two
    suspended, and new cards made ahead that the list leaves out; another learner's too."""
    now = timezone.now().replace(microsecond=123456)
    dues = [now + timedelta(hours=h) for h in range(20)] + [now + timedelta(hours=5)] * 3
    cards = [
        Card(user=learner, question=QuestionFactory(), state="review", due=due, seed=1,
             stability=3.0, difficulty=5.0, last_review=now - timedelta(days=1),
             suspended=i in (4, 9))
        for i, due in enumerate(dues)
    ]  # fmt: skip
    cards += [Card(user=learner, question=QuestionFactory(), state="new", due=now, seed=1)]
    cards += [Card(user=UserFactory(), question=QuestionFactory(), state="review", due=now, seed=1)]
    Card.objects.bulk_create(cards)
    return (
        Card.objects.filter(user=learner).exclude(state="new").order_by("due", "pk")
    )  # the list's own order


def ids(body) -> list[int]:
    return [card["id"] for card in body["results"]]


def read_by_cursor(api, **params) -> list[dict]:
    bodies = [api.get("/api/v1/cards/", params=params).json()]
    while bodies[-1]["next_cursor"]:
        cursor = bodies[-1]["next_cursor"]
        body = api.get("/api/v1/cards/", params={**params, "cursor": cursor}).json()
        assert body["next"] is None or f"cursor={body['next_cursor']}" in body["next"]
        assert body["previous"] is None
        bodies.append(body)
    return bodies


def test_reading_on_by_cursor_gives_every_card_once_in_the_lists_order(api, deck):
    by_pages = [
        api.get("/api/v1/cards/", params={"page": n, "page_size": 5}).json() for n in range(1, 6)
    ]
    by_cursor = read_by_cursor(api, page_size=5)
    expected = [card.pk for card in deck]
    assert [i for body in by_pages for i in ids(body)] == expected
    assert [i for body in by_cursor for i in ids(body)] == expected
    assert len(by_cursor) == 5
    assert {body["count"] for body in by_cursor} == {23}
    assert by_cursor[-1]["next_cursor"] is None
    assert by_pages[-1]["next_cursor"] is None
    assert by_pages[0]["next_cursor"] == by_cursor[0]["next_cursor"]


def test_a_cursor_keeps_the_filters_it_is_sent_with(api, deck):
    suspended = read_by_cursor(api, suspended="true", page_size=1)
    assert [i for body in suspended for i in ids(body)] == [c.pk for c in deck if c.suspended]
    unsuspended = read_by_cursor(api, suspended="false", page_size=7)
    assert [i for b in unsuspended for i in ids(b)] == [c.pk for c in deck if not c.suspended]


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "not-base64!",
        "bm90IGEgY3Vyc29y",  # "not a cursor"
        "MjAyNi0xMi0wMXwx",  # a date with no time zone, then 1
        "MjAyNi0xMi0wMVQwMDowMDowMCswMDowMHwtMQ",  # a negative id
        "MjAyNi0xMi0wMVQwMDowMDowMCswMDowMHw5OTk5OTk5OTk5OTk5OTk5OTk5OQ",  # past 64 bits
        "A" * 201,
        "\u00e9t\u00e9",
        "x\x00y",
    ],
)
def test_a_cursor_the_list_did_not_give_is_a_problem_naming_it(api, deck, cursor):
    assert_problem(api.get("/api/v1/cards/", params={"cursor": cursor}), 400, "cursor")


def test_another_learners_position_shows_only_the_callers_cards(api, deck, learner):
    theirs = Card.objects.exclude(user=learner).get()
    first = api.get("/api/v1/cards/", params={"page_size": 100}).json()
    cursor = api.get("/api/v1/cards/", params={"page_size": 1}).json()["next_cursor"]
    body = api.get("/api/v1/cards/", params={"cursor": cursor, "page_size": 100}).json()
    assert theirs.pk not in ids(body)
    assert ids(body) == ids(first)[1:]


def test_the_list_reads_its_own_index_in_order(learner):
    from reviews.selectors import cards_of

    sql, params = cards_of(user=learner)[:20].query.sql_with_params()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A tiny table: ask for the plan a large one gets, an index read in order (a Sort
            # would remain only if no index gave that order).
            off = ("enable_seqscan", "enable_bitmapscan", "enable_sort")
            for setting in off:
                cursor.execute(f"SET {setting} = off")
            cursor.execute(f"EXPLAIN {sql}", params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            for setting in off:
                cursor.execute(f"RESET {setting}")
        else:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
            plan = "\n".join(str(row[-1]) for row in cursor.fetchall())
    assert "card_seen" in plan, plan
    assert "Sort" not in plan, plan  # PostgreSQL's sort
    assert "TEMP B-TREE" not in plan, plan  # SQLite's
