"""The card list: the API's filters, pages, and suspend, unsuspend and forget, one card or the
selected ones, with forms (a redirect back to the list as it was) or htmx (the row alone);
another learner's card is a 404; hostile filters are the form's errors, never a 500."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviews.models import Card
from tests.factories import LessonFactory, QuestionFactory, UserFactory
from tests.reviews.web.helpers import answered

pytestmark = pytest.mark.django_db


def visit(client, path, **headers):
    return client.get(path, secure=True, headers={"Accept": "text/html", **headers})


def post(client, path, data=None, **headers):
    return client.post(path, data or {}, secure=True, headers=headers)


def listed(response) -> list[int]:
    return [int(i) for i in re.findall(r'<li id="card-(\d+)">', response.content.decode())]


@pytest.fixture
def learner(client):
    """Two lessons' cards: three reviewed in lesson one, one in lesson two; a new one unseen."""
    user = UserFactory(timezone="UTC")
    one, two = LessonFactory(slug="one", number=1), LessonFactory(slug="two", number=2)
    questions = [*QuestionFactory.create_batch(3, lesson=one), QuestionFactory(lesson=two)]
    QuestionFactory(lesson=two)  # never answered: no card in the list
    now = timezone.now()
    for question in questions:
        answered(user, question, at=now - timedelta(days=3))
    client.force_login(user)
    return user


def cards_of(user):
    return list(Card.objects.filter(user=user).exclude(state="new").order_by("due", "pk"))


def test_the_list_shows_each_card_with_its_prompt_lesson_state_due_and_lapses(client, learner):
    response = visit(client, "/cards/")
    html = response.content.decode()

    assert response.status_code == 200
    assert listed(response) == [c.pk for c in cards_of(learner)]
    assert "How many weights does the MLP of a 1,000-wide model hold (ratio 4)?" in html
    assert re.search(r"<dt>State</dt><dd>Learning</dd>", html)
    assert re.search(r"<dt>Lapses</dt><dd>0</dd>", html)
    assert "1–4 of 4 cards" in html


def test_filters_are_the_apis(client, learner):
    cards = cards_of(learner)
    lesson_two = [c.pk for c in cards if c.question.lesson.slug == "two"]
    Card.objects.filter(pk=cards[0].pk).update(suspended=True)
    Card.objects.filter(pk=cards[1].pk).update(leech=True, state="review", step=None)

    def ids(query):
        page = listed(visit(client, f"/cards/?{query}"))
        api = client.get(f"/api/v1/cards/?{query}", secure=True).json()["results"]
        assert page == [c["id"] for c in api], query
        return page

    assert ids("lesson=two") == lesson_two
    assert ids("suspended=true") == [cards[0].pk]
    assert ids("leech=true") == [cards[1].pk]
    assert ids("state=review") == [cards[1].pk]
    assert len(ids("suspended=false&state=learning")) == 2


def test_an_any_choice_leaves_the_filter_out(client, learner):
    response = visit(client, "/cards/?state=&lesson=one&suspended=&leech=&due=")

    assert response.status_code == 302
    assert response.headers["Location"] == "/cards/?lesson=one"
    assert len(listed(visit(client, response.headers["Location"]))) == 3
    assert visit(client, "/cards/?state=").headers["Location"] == "/cards/"


def test_due_today_lists_the_cards_the_stats_count_as_due(client, learner):
    cards = cards_of(learner)
    now = timezone.now()
    Card.objects.filter(pk=cards[0].pk).update(due=now - timedelta(hours=1))
    Card.objects.filter(pk=cards[1].pk).update(due=now - timedelta(hours=2), suspended=True)
    Card.objects.filter(pk__in=[c.pk for c in cards[2:]]).update(due=now + timedelta(days=3))
    stats = client.get("/api/v1/stats/", secure=True).json()

    today = listed(visit(client, "/cards/?due=today"))
    week = listed(visit(client, "/cards/?due=week"))

    assert today == [cards[0].pk]
    assert len(today) == stats["due_today"]
    assert week == [cards[0].pk, *(c.pk for c in cards[2:])]


@pytest.mark.parametrize(
    "query",
    [
        "state=%00",
        "lesson=one%00",
        "suspended=%00true",
        "leech=maybe",
        "due=yesterday",
        "page=%00",
        "page=99999999999999999999999",
        "state=review&lesson=" + "x" * 500,
    ],
)
def test_hostile_filters_never_break_the_page(client, learner, query):
    response = visit(client, f"/cards/?{query}")

    assert response.status_code == 200
    if not query.startswith("page="):
        assert "error-summary" in response.content.decode()


def test_the_list_is_in_pages_of_twenty(client):
    user = UserFactory()
    for question in QuestionFactory.create_batch(25, lesson=LessonFactory()):
        answered(user, question, at=timezone.now() - timedelta(days=1))
    client.force_login(user)

    first, second = visit(client, "/cards/"), visit(client, "/cards/?page=2")

    assert len(listed(first)) == 20
    assert len(listed(second)) == 5
    assert 'href="?page=2"' in first.content.decode()


def test_suspend_then_unsuspend_with_forms_returns_to_the_list_as_filtered(client, learner):
    card = cards_of(learner)[0]

    response = post(client, f"/cards/{card.pk}/suspend/", {"back_query": "lesson=one&page=1"})

    assert response.status_code == 303
    assert response.headers["Location"] == "/cards/?lesson=one&page=1"
    card.refresh_from_db()
    assert card.suspended
    page = visit(client, response.headers["Location"]).content.decode()
    assert "Suspended: “How many weights" in page
    assert post(client, f"/cards/{card.pk}/unsuspend/").headers["Location"] == "/cards/"
    card.refresh_from_db()
    assert not card.suspended


def test_an_action_never_redirects_off_the_card_list(client, learner):
    card = cards_of(learner)[0]

    response = post(
        client,
        f"/cards/{card.pk}/suspend/",
        {"back_query": "next=https://evil.test/&state=new\x00"},
    )

    assert response.headers["Location"] == "/cards/?state=new"


def test_with_htmx_an_action_answers_with_the_row_alone(client, learner):
    card = cards_of(learner)[0]

    response = post(client, f"/cards/{card.pk}/suspend/", HX_Request="true")
    html = response.content.decode()

    assert response.status_code == 200
    assert "<html" not in html
    assert 'class="card-row card-row--suspended"' in html
    assert "Unsuspend" in html
    assert "data-autofocus" in html
    assert 'id="card-status"' in html
    assert 'hx-swap-oob="true"' in html


def test_forget_starts_the_card_over_as_the_api_does(client, learner):
    card = cards_of(learner)[0]

    response = post(client, f"/cards/{card.pk}/forget/")

    assert response.status_code == 303
    card.refresh_from_db()
    assert (card.state, card.reps, card.reset_at is not None) == ("new", 0, True)
    assert card.pk in listed(visit(client, "/cards/"))  # forgotten cards stay in the list


def test_selected_cards_are_suspended_together(client, learner):
    first, second, *_ = cards_of(learner)

    response = post(
        client, "/cards/selected/", {"action": "suspend", "card": [first.pk, second.pk]}
    )

    assert response.status_code == 303
    assert set(Card.objects.filter(suspended=True).values_list("pk", flat=True)) == {
        first.pk,
        second.pk,
    }


def test_forgetting_selected_cards_asks_first(client, learner):
    first, second, *_ = cards_of(learner)
    data = {"action": "forget", "card": [first.pk, second.pk], "back_query": "state=learning"}

    asked = post(client, "/cards/selected/", data)

    assert asked.status_code == 200
    assert "Forget 2 cards?" in asked.content.decode()
    assert Card.objects.filter(pk__in=[first.pk, second.pk], state="new").count() == 0
    done = post(client, "/cards/selected/", {**data, "confirm": "yes"})
    assert done.headers["Location"] == "/cards/?state=learning"
    assert Card.objects.filter(pk__in=[first.pk, second.pk], state="new").count() == 2


def test_nothing_selected_is_said_so(client, learner):
    response = post(client, "/cards/selected/", {"action": "suspend"})

    assert response.status_code == 303
    assert "Select at least one card" in visit(client, "/cards/").content.decode()


@pytest.mark.parametrize("path", ["suspend", "unsuspend", "forget"])
def test_another_learners_card_is_a_404(client, learner, path):
    theirs = UserFactory()
    answered(theirs, QuestionFactory(), at=timezone.now())
    card = Card.objects.get(user=theirs)

    response = post(client, f"/cards/{card.pk}/{path}/")

    assert response.status_code == 404
    card.refresh_from_db()
    assert (card.suspended, card.state) == (False, "learning")


@pytest.mark.parametrize(
    "ids", [["theirs"], ["mine", "theirs"], ["1\x00"], ["-1"], ["99999999999999999999"], ["x"]]
)
def test_selected_ids_that_are_not_the_learners_are_a_404(client, learner, ids):
    theirs = UserFactory()
    answered(theirs, QuestionFactory(), at=timezone.now())
    known = {"theirs": Card.objects.get(user=theirs).pk, "mine": cards_of(learner)[0].pk}

    response = post(
        client, "/cards/selected/", {"action": "suspend", "card": [known.get(i, i) for i in ids]}
    )

    assert response.status_code == 404
    assert not Card.objects.filter(suspended=True).exists()


def test_unknown_actions_and_gets_are_refused(client, learner):
    card = cards_of(learner)[0]

    assert (
        post(client, "/cards/selected/", {"action": "delete", "card": card.pk}).status_code == 404
    )
    assert visit(client, f"/cards/{card.pk}/suspend/").status_code == 405
    assert post(client, "/cards/").status_code == 405


def test_the_list_costs_the_same_queries_for_5_cards_as_for_50(client):
    def queries_for(cards: int) -> int:
        user = UserFactory()
        lessons = [LessonFactory(), LessonFactory()]
        for i, question in enumerate(QuestionFactory.create_batch(cards, lesson=lessons[0])):
            question.lesson = lessons[i % 2]
            question.save()
            answered(user, question, at=timezone.now() - timedelta(days=1))
        client.force_login(user)
        with CaptureQueriesContext(connection) as queries:
            assert visit(client, "/cards/?suspended=false").status_code == 200
        return len(queries)

    assert queries_for(5) == queries_for(50)
