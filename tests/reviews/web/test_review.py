"""The review session in the browser: one card at a time, feedback then next, undo, suspend,
bury and forget, the summary; a review step costs the same queries for 5 cards as for 50."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviews.cards import new_card
from reviews.models import Answer, Card
from tests.factories import QuestionFactory
from tests.reviews.web.pages import answer_form, forms_in

pytestmark = pytest.mark.django_db


def due_cards(user, count):
    """`count` review cards due since yesterday, each on a question of its own lesson."""
    now = timezone.now()
    cards = []
    for _ in range(count):
        card = new_card(user=user, question=QuestionFactory())
        card.state, card.due, card.last_review = (
            "review",
            now - timedelta(days=1),
            now - timedelta(days=6),
        )
        card.stability, card.difficulty, card.reps = 5.0, 5.0, 2
        cards.append(card)
    Card.objects.bulk_create(cards)
    return cards


def answer_the_card(client, response="8e6"):
    html = client.get("/review/").content.decode()
    form = answer_form(html)
    return client.post(form.action, {**form.fields, "response": response})


def test_the_review_page_shows_a_card_with_counts_and_progress(client, learner):
    due_cards(learner, 3)

    html = client.get("/review/").content.decode()

    assert "How many weights does the MLP" in html
    assert "<progress" in html
    assert "0 done, 3 left" in html
    assert 'data-key="Space,Enter"' in html
    assert "<kbd" in html


def test_a_review_is_scheduled_and_its_feedback_leads_to_the_next_card(client, learner):
    due_cards(learner, 2)

    response = answer_the_card(client)

    assert response.status_code == 303
    assert "?answer=" in response["Location"]
    page = client.get(response["Location"]).content.decode()
    assert "Right." in page
    assert "You will see this question again" in page
    assert "1 done, 1 left" in page
    assert 'href="/review/"' in page  # Next
    answer = Answer.objects.get()
    assert (answer.mode, answer.card.reps) == ("review", 3)


def test_a_double_posted_review_counts_once(client, learner):
    due_cards(learner, 2)
    html = client.get("/review/").content.decode()
    form = answer_form(html)

    client.post(form.action, {**form.fields, "response": "8e6"})
    client.post(form.action, {**form.fields, "response": "8e6"})

    assert Answer.objects.count() == 1
    assert Card.objects.filter(reps=3).count() == 1


def test_undo_takes_the_last_review_back(client, learner):
    card = due_cards(learner, 1)[0]
    answer_the_card(client)

    response = client.post("/review/undo/")

    assert response.status_code == 303
    card.refresh_from_db()
    assert (card.reps, card.state) == (2, "review")
    assert not Answer.objects.exists()
    assert "taken back" in client.get("/review/").content.decode()


def test_undo_with_nothing_to_undo_says_so(client, learner):
    due_cards(learner, 1)

    client.post("/review/undo/")

    assert "no answer to take back" in client.get("/review/").content.decode()


@pytest.mark.parametrize("action", ["suspend", "bury"])
def test_a_card_is_suspended_or_buried_from_the_review(client, learner, action):
    first, second = due_cards(learner, 2)

    response = client.post(f"/review/questions/{first.question_id}/{action}/")

    assert response.status_code == 303
    first.refresh_from_db()
    assert first.suspended if action == "suspend" else first.buried_until > timezone.now()
    html = client.get("/review/").content.decode()
    assert f"question-{second.question_id}" in html
    assert f'question-{first.question_id}"' not in html


def test_forget_asks_first_then_starts_the_card_over(client, learner):
    card = due_cards(learner, 1)[0]

    confirm = client.get(f"/review/questions/{card.question_id}/forget/")
    response = client.post(f"/review/questions/{card.question_id}/forget/")

    assert "Forget this card?" in confirm.content.decode()
    assert response.status_code == 303
    card.refresh_from_db()
    assert (card.state, card.reps) == ("new", 0)


def test_another_learners_card_cannot_be_touched(client, learner, numeric):
    response = client.post(f"/review/questions/{numeric.pk}/suspend/")

    assert response.status_code == 404


def test_with_htmx_an_answer_returns_the_card_fragment(client, learner):
    due_cards(learner, 2)
    html = client.get("/review/").content.decode()
    form = answer_form(html)

    response = client.post(
        form.action, {**form.fields, "response": "4e6"}, headers={"HX-Request": "true"}
    )

    body = response.content.decode()
    assert body.lstrip().startswith('<div id="review-card"')
    assert "Not quite: That is one matrix." in body


def test_with_no_cards_left_the_session_ends_with_its_summary(client, learner):
    due_cards(learner, 1)
    answer_the_card(client, response="4e6")  # wrong: the card comes back in a few minutes

    Card.objects.update(due=timezone.now() + timedelta(days=1, hours=1))
    response = client.get("/review/")
    summary = client.get(response["Location"]).content.decode()

    assert response["Location"] == "/review/done/"
    assert "Answered" in summary
    assert ">1<" in summary
    assert "Due tomorrow" in summary


def test_the_review_page_needs_a_signed_in_learner(client):
    response = client.get("/review/")

    assert response.status_code == 302
    assert "/login/" in response["Location"]


def queries_of_a_review_step(client, user, cards):
    due_cards(user, cards)
    client.get("/review/")  # the deck is made on the first visit
    with CaptureQueriesContext(connection) as served:
        html = client.get("/review/").content.decode()
    form = answer_form(html)
    with CaptureQueriesContext(connection) as answered:
        response = client.post(form.action, {**form.fields, "response": "8e6"})
    with CaptureQueriesContext(connection) as shown:
        client.get(response["Location"])
    return len(served), len(answered), len(shown)


def test_a_review_step_costs_the_same_for_5_cards_as_for_50(client, learner):
    from tests.factories import UserFactory

    few = queries_of_a_review_step(client, learner, 5)
    other = UserFactory()
    client.force_login(other)
    many = queries_of_a_review_step(client, other, 50)

    assert few == many
    assert max(few) <= 25, few


def test_the_card_actions_post_with_their_csrf_token(client, learner):
    due_cards(learner, 1)

    html = client.get("/review/").content.decode()

    actions = {f.action for f in forms_in(html)}
    assert any(a.endswith("/bury/") for a in actions)
    assert any(a.endswith("/suspend/") for a in actions)
