"""A question's kept shape, filled in for a serving, is exactly what the slot template renders
for that serving: every kind, every place a question is shown, choices in any order, and a
visitor's view; content edited after the shape was kept shows as edited; what holds a
learner's own input is never kept."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import Context
from django.template.loader import get_template
from django.test import RequestFactory

from config.lru import LRU
from quizzes.models import Question
from reviews.web import answering, checks, fragments, review
from reviews.web.answering import Slot
from reviews.web.forms import AnswerForm
from tests.factories import ChoiceFactory, UserFactory

pytestmark = pytest.mark.django_db

CSRF = "csrf-token-of-this-request"


@pytest.fixture
def request_():
    request = RequestFactory().get("/courses/c/l/")
    request.user = UserFactory()
    return request


def direct(slot: Slot, request, *, level: int = 3, title: str = "Your turn") -> str:
    """The slot as the template renders it, with no shape kept."""
    template = get_template(fragments.TEMPLATE).template
    context = {"slot": slot, "level": level, "title": title, "request": request}
    return template.render(Context({**context, "csrf_token": CSRF}))


def kept(slot: Slot, request, *, level: int = 3, title: str = "Your turn") -> str:
    html = fragments.render_slot(slot, level=level, title=title, request=request, csrf_token=CSRF)
    assert html is not None, "this slot is kept"
    return str(html)


def fresh(question: Question) -> Question:
    """The question as a page loads it, with its choices in order."""
    found = Question.objects.prefetch_related("choices").select_related("lesson__course")
    return found.get(pk=question.pk)


@pytest.mark.parametrize(
    "kind", ["numeric", "single_choice", "multiple_choice", "generated", "free_text"]
)
@pytest.mark.parametrize("where", ["check", "review"])
def test_a_filled_shape_is_the_template_rendered_for_that_serving(request, request_, kind, where):
    question = fresh(request.getfixturevalue(kind))
    place = checks._place(question) if where == "check" else review._place(question)
    renders = []
    for _ in range(6):  # new stamps, tokens, variants and orders of choices each time
        slot = answering.ask(question, user_id=request_.user.pk, place=place)
        html = kept(slot, request_)
        assert html == direct(slot, request_)
        renders.append(html)
    assert len(fragments.shapes) == 1, "one shape for every serving of the question here"
    assert len(set(renders)) == len(renders), "each serving has its own stamp"
    assert CSRF in renders[0]
    assert fragments._MARK not in "".join(renders)


def test_every_order_of_the_choices_fills_the_one_shape(request_):
    right = ChoiceFactory(is_correct=True, text_markdown="First")
    question = right.question
    for text in ("Second", "Third <b>bold</b>", "Fourth & last"):
        ChoiceFactory(question=question, text_markdown=text)
    question = fresh(question)
    place = review._place(question)
    by_id = {c.pk: c for c in question.choices.all()}
    for order in itertools.permutations(by_id):
        slot = answering.ask(question, user_id=request_.user.pk, place=place)
        slot.order = order
        slot.form = AnswerForm(
            initial={"served": slot.served, "variant": slot.variant_token},
            question=question,
            choices=[by_id[pk] for pk in order],
            keys=True,
            autofocus=True,
        )
        assert kept(slot, request_, level=2, title="Lesson") == direct(
            slot, request_, level=2, title="Lesson"
        )
    assert len(fragments.shapes) == 1


def test_content_edited_after_its_shape_was_kept_shows_as_edited(request_, single_choice):
    question = fresh(single_choice)
    place = checks._place(question)
    kept(answering.ask(question, user_id=request_.user.pk, place=place), request_)
    Question.objects.filter(pk=question.pk).update(prompt_html="<p>A new prompt.</p>")
    choice = question.choices.first()
    type(choice).objects.filter(pk=choice.pk).update(text_html="<p>A new choice</p>")
    question = fresh(question)
    slot = answering.ask(question, user_id=request_.user.pk, place=place)
    html = kept(slot, request_)
    assert html == direct(slot, request_)
    assert "A new prompt." in html
    assert "A new choice" in html
    assert len(fragments.shapes) == 1, "the shape kept before, filled with the new content"


def test_a_visitor_sees_the_template_rendered_for_them(request_, multiple_choice):
    request_.user = AnonymousUser()
    question = fresh(multiple_choice)
    for _ in range(4):
        slot = answering.sign_in(question, place=checks._place(question))
        assert kept(slot, request_) == direct(slot, request_)
    assert "Sign in to check your answer" in kept(slot, request_)


def test_a_form_sent_back_or_with_a_problem_is_never_kept(request_, numeric):
    question = fresh(numeric)
    place = checks._place(question)
    slot = answering.ask(question, user_id=request_.user.pk, place=place)
    slot.problem = "Type your answer as a number."
    assert (
        fragments.render_slot(slot, level=3, title="t", request=request_, csrf_token=CSRF) is None
    )
    sent = Slot(
        question=question,
        place=place,
        state="ask",
        prompt_html=answering.prompt_of(question, None),
        form=AnswerForm({"response": "<script>"}, question=question),
    )
    assert (
        fragments.render_slot(sent, level=3, title="t", request=request_, csrf_token=CSRF) is None
    )
    assert len(fragments.shapes) == 0


def test_values_put_in_are_escaped(request_, numeric):
    question = fresh(numeric)
    slot = answering.ask(question, user_id=request_.user.pk, place=checks._place(question))
    slot.served = '"><script>alert(1)</script>'
    html = fragments.render_slot(
        slot, level=3, title="t", request=request_, csrf_token='"><img src=x>'
    )
    assert "<script>" not in html
    assert "<img src=x>" not in html
    assert "&quot;&gt;&lt;script&gt;" in html


def test_kept_shapes_are_bounded():
    shapes: LRU[str] = LRU(3)
    for n in range(5):
        shapes.put(n, str(n))
    assert len(shapes) == 3
    assert shapes.get(0) is None
    assert shapes.get(4) == "4"
    shapes.get(2)  # used: kept over the older 3
    shapes.put(5, "5")
    assert shapes.get(2) == "2"
    assert shapes.get(3) is None
