"""Answering in the browser, through practice (the same component serves lesson checks and
reviews): each kind right and wrong, the mistake named, nothing given away before, a
double-click counted once, a reveal counted as a reveal."""

from __future__ import annotations

import re
import time

import pytest
from django.core import signing

from course import markdown
from engine import get_family
from quizzes.variants import served_variant
from reviews.models import Answer, Card, Reveal
from tests.factories import UserFactory
from tests.reviews.web.conftest import MODEL_ANSWER
from tests.reviews.web.pages import answer_form

pytestmark = pytest.mark.django_db


def page_of(question):
    return f"/practice/lessons/{question.lesson.slug}/?question={question.pk}"


def serve(client, question):
    response = client.get(page_of(question))
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def post_answer(client, question, html, **fields):
    form = answer_form(html)
    return client.post(form.action, {**form.fields, **fields})


def feedback(client, response):
    assert response.status_code == 303, response.content[:500]
    page = client.get(response["Location"])
    assert page.status_code == 200
    return page.content.decode()


def test_a_numeric_answer_right_is_told_right(client, learner, numeric):
    html = serve(client, numeric)

    page = feedback(client, post_answer(client, numeric, html, response="8e6"))

    assert "Right." in page
    assert "2 × 1,000 × 4,000 = 8,000,000" in page  # the worked steps follow
    assert Answer.objects.get().mode == "practice"


def test_a_numeric_answer_wrong_names_the_mistake_first(client, learner, numeric):
    html = serve(client, numeric)

    page = feedback(client, post_answer(client, numeric, html, response="4,000,000"))

    assert "Not quite: That is one matrix." in page
    assert page.index("Not quite") < page.index("Worked steps")
    assert 'aria-live="polite"' in page


def test_an_unreadable_number_is_the_forms_error_and_keeps_the_question(client, learner, numeric):
    html = serve(client, numeric)

    response = post_answer(client, numeric, html, response="eight million")

    assert response.status_code == 200
    assert "field-error" in response.content.decode()
    assert not Answer.objects.exists()


def test_a_nul_byte_is_the_forms_error(client, learner, numeric):
    html = serve(client, numeric)

    response = post_answer(client, numeric, html, response="8\x00")

    assert response.status_code == 200
    assert "Null characters are not allowed" in response.content.decode()
    assert not Answer.objects.exists()


@pytest.mark.parametrize("right", [True, False])
def test_a_single_choice_answer_shows_each_choice_with_why(client, learner, single_choice, right):
    html = serve(client, single_choice)
    choice = single_choice.choices.get(is_correct=right)

    page = feedback(client, post_answer(client, single_choice, html, choice=str(choice.pk)))

    assert ("Right." if right else "Not quite.") in page
    assert "The bias sets the bar." in page
    assert "your pick" in page


def test_a_multiple_choice_answer_takes_every_pick(client, learner, multiple_choice):
    html = serve(client, multiple_choice)
    picks = [str(c.pk) for c in multiple_choice.choices.filter(is_correct=True)]

    page = feedback(client, post_answer(client, multiple_choice, html, choice=picks))

    assert "Right." in page
    assert sorted(Answer.objects.get().choice_ids) == sorted(int(p) for p in picks)


def served_variant_of(question, html, user):
    token = answer_form(html).fields["variant"]
    served = served_variant(token=token, user_id=user.pk, question_id=question.pk)
    return get_family("relu_neuron").variant(served.seed)


def test_a_generated_question_is_graded_on_its_own_variant(client, learner, generated):
    html = serve(client, generated)
    variant = served_variant_of(generated, html, learner)

    page = feedback(client, post_answer(client, generated, html, response=variant.correct_answer))

    assert "Right." in page
    assert variant.solution_steps[-1] in page


def test_a_generated_question_answered_wrong_names_its_mistake(client, learner, generated):
    # A variant whose "forgot the bias" value differs from the right one.
    for _ in range(40):
        html = serve(client, generated)
        variant = served_variant_of(generated, html, learner)
        slip = [m for m in variant.mistakes if m.code == "no_bias"]
        if slip and f"{slip[0].value:g}" != variant.correct_answer:
            break
    else:
        pytest.fail("no variant with a distinct mistake")

    page = feedback(client, post_answer(client, generated, html, response=f"{slip[0].value:g}"))

    assert "Not quite: The bias is missing" in page


def test_free_text_is_revealed_then_rated(client, learner, free_text):
    html = serve(client, free_text)
    form = answer_form(html)

    shown = client.post(form.action, {**form.fields, "response": "norm, sublayer, add"})
    assert shown.status_code == 303
    revealed = client.get(shown["Location"]).content.decode()
    assert MODEL_ANSWER in revealed
    assert "norm, sublayer, add" in revealed
    rating = answer_form(revealed)
    rated = client.post(rating.action, {**rating.fields, "self_rating": "good"})

    page = feedback(client, rated)
    assert "You rated your answer Good." in page
    answer = Answer.objects.get()
    assert (answer.self_rating, answer.response, answer.reveal_id) == (
        "good",
        "norm, sublayer, add",
        Reveal.objects.get().pk,
    )


def test_nothing_before_answering_gives_the_numeric_answer_away(client, learner, numeric):
    html = serve(client, numeric)

    for secret in ("8000000", "8,000,000", "8e6", "one matrix", "Two matrices of d by 4d"):
        assert secret not in html


def test_nothing_before_answering_gives_a_choice_away(client, learner, single_choice):
    html = serve(client, single_choice)

    assert "The bias sets the bar." not in html
    assert "correct" not in html.lower()
    right = single_choice.choices.get(is_correct=True)
    wrong = single_choice.choices.get(is_correct=False)
    assert html.count(f'value="{right.pk}"') == html.count(f'value="{wrong.pk}"') == 1


def test_nothing_before_answering_gives_the_model_answer_away(client, learner, free_text):
    html = serve(client, free_text)

    assert "Norm, then the sublayer" not in html


def test_nothing_before_answering_gives_a_variants_answer_away(client, learner, generated):
    for _ in range(40):  # a variant whose answer is a telling string (not 0)
        html = serve(client, generated)
        variant = served_variant_of(generated, html, learner)
        if len(variant.correct_answer) >= 4:
            break

    for step in variant.solution_steps:
        assert step not in html
    # The answer, as a number standing alone (not inside 10.115), shows no more often than
    # the prompt's own numbers hold it.
    prompt = markdown.render(variant.prompt)
    alone = re.compile(rf"(?<![\w.]){re.escape(variant.correct_answer)}(?![\w])")
    assert len(alone.findall(html)) == len(alone.findall(prompt))
    assert prompt in html


def test_a_double_click_answers_once(client, learner, numeric):
    html = serve(client, numeric)

    first = post_answer(client, numeric, html, response="8e6", elapsed_ms="900")
    second = post_answer(client, numeric, html, response="8e6", elapsed_ms="1100")

    assert Answer.objects.count() == 1
    assert first["Location"] == second["Location"]


def test_a_replayed_token_in_review_counts_as_practice(client, learner, generated):
    html = client.get("/review/").content.decode()
    form = answer_form(html)
    variant = served_variant_of(generated, html, learner)
    client.post(form.action, {**form.fields, "response": variant.correct_answer})
    # The same variant token, in a form served again (a new key): the token was answered.
    again = {**form.fields, "served": answer_form(serve(client, generated)).fields["served"]}

    response = client.post(form.action, {**again, "response": variant.correct_answer})

    assert response.status_code == 303
    modes = list(Answer.objects.order_by("pk").values_list("mode", "notice"))
    assert modes == [("review", ""), ("practice", "variant_answered")]


def test_a_forged_served_stamp_is_refused_and_the_question_served_again(client, learner, numeric):
    html = serve(client, numeric)

    response = post_answer(client, numeric, html, response="8e6", served="forged")

    assert response.status_code == 200
    assert "served too long ago" in response.content.decode()
    assert not Answer.objects.exists()


def test_the_time_taken_is_never_shorter_than_the_server_saw(client, learner, numeric):
    html = serve(client, numeric)
    a_minute_ago = signing.dumps(
        {"q": numeric.pk, "t": int(time.time() * 1000) - 60_000, "k": "k1"},
        salt="residual.reviews.web.served",
        compress=True,
    )

    post_answer(client, numeric, html, response="8e6", served=a_minute_ago, elapsed_ms="5")

    assert Answer.objects.get().duration_ms >= 60_000


def test_another_learners_answer_is_not_found(client, learner, numeric):
    other = UserFactory()
    client.force_login(other)
    html = serve(client, numeric)
    location = post_answer(client, numeric, html, response="8e6")["Location"]
    client.force_login(learner)

    assert client.get(location).status_code == 404
    assert client.get(f"/review/?answer={Answer.objects.get().pk}").status_code == 404


def test_show_the_answer_is_counted_as_a_reveal_not_an_answer(client, learner, numeric):
    html = serve(client, numeric)
    form = answer_form(html)
    reveal_url = next(action for _, _, action in form.buttons if action)

    response = client.post(reveal_url, form.fields)

    assert response.status_code == 303
    page = client.get(response["Location"]).content.decode()
    assert "8,000,000" in page or "8000000" in page
    assert Reveal.objects.filter(user=learner, question=numeric).count() == 1
    assert not Answer.objects.exists()
    assert Card.objects.get(user=learner, question=numeric).pending_reveal is not None


def test_with_htmx_the_answer_comes_back_as_the_feedback_fragment(client, learner, numeric):
    html = serve(client, numeric)
    form = answer_form(html)

    response = client.post(
        form.action, {**form.fields, "response": "4e6"}, headers={"HX-Request": "true"}
    )

    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert "Not quite: That is one matrix." in body
