"""Practice (no scheduling, another variant at will) and a lesson's check questions answered
in place (the section extra the lesson page shows)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from course.selectors import lesson_page
from reviews.models import Answer, Card
from reviews.web.checks import section_checks
from tests.factories import LessonFactory, QuestionFactory, SectionFactory, UserFactory
from tests.reviews.web.pages import answer_form

pytestmark = pytest.mark.django_db


def test_the_practice_page_lists_lessons_and_topics(client, learner, numeric):
    html = client.get("/practice/").content.decode()

    assert numeric.lesson.title in html
    assert f"/practice/lessons/{numeric.lesson.slug}/" in html
    assert "/practice/topics/mlp/" in html


def test_practice_never_schedules(client, learner, numeric):
    html = client.get(f"/practice/lessons/{numeric.lesson.slug}/").content.decode()
    form = answer_form(html)

    client.post(form.action, {**form.fields, "response": "8e6"})

    assert Answer.objects.get().mode == "practice"
    assert not Card.objects.filter(user=learner).exclude(state="new").exists()


def test_a_generated_question_gives_another_variant_each_time(client, learner, generated):
    page = f"/practice/lessons/{generated.lesson.slug}/?question={generated.pk}"
    tokens = {answer_form(client.get(page).content.decode()).fields["variant"] for _ in range(3)}

    html = client.get(page).content.decode()
    form = answer_form(html)
    done = client.get(client.post(form.action, {**form.fields, "response": "1"})["Location"])

    assert len(tokens) == 3
    assert "Another one" in done.content.decode()


def test_a_topic_that_does_not_exist_is_not_found(client, learner):
    assert client.get("/practice/topics/astrology/").status_code == 404
    assert client.get("/practice/lessons/no-such-lesson/").status_code == 404


def test_a_practice_step_costs_the_same_for_5_questions_as_for_50(client, learner):
    counts = []
    for size in (5, 50):
        lesson = LessonFactory()
        QuestionFactory.create_batch(size, lesson=lesson)
        page = f"/practice/lessons/{lesson.slug}/"
        with CaptureQueriesContext(connection) as served:
            html = client.get(page).content.decode()
        form = answer_form(html)
        with CaptureQueriesContext(connection) as answered:
            response = client.post(form.action, {**form.fields, "response": "8e6"})
        with CaptureQueriesContext(connection) as shown:
            client.get(response["Location"])
        counts.append((len(served), len(answered), len(shown)))

    assert counts[0] == counts[1], counts


def a_lesson_with_checks(count=2):
    lesson = LessonFactory()
    first, second = SectionFactory(lesson=lesson), SectionFactory(lesson=lesson)
    questions = [QuestionFactory(lesson=lesson, section=first) for _ in range(count)]
    questions.append(QuestionFactory(lesson=lesson, section=second))
    return lesson, (first, second), questions


def extras_for(user, lesson, query=""):
    request = RequestFactory().get(f"/courses/{lesson.course.slug}/{lesson.slug}/{query}")
    request.user = user
    request.session = {}
    return section_checks(request, lesson_page(slug=lesson.slug, user=user))


def test_each_section_gets_its_check_questions(learner):
    lesson, (first, second), questions = a_lesson_with_checks()

    extras = extras_for(learner, lesson)

    assert set(extras) == {first.pk, second.pk}
    assert extras[first.pk].count('class="answer-form"') == 2
    assert f'action="/check/{questions[0].pk}/"' in extras[first.pk]
    assert "8,000,000" not in extras[first.pk]


def test_a_visitor_is_asked_to_sign_in_to_check(db):
    lesson, (first, _), _ = a_lesson_with_checks()

    extras = extras_for(AnonymousUser(), lesson)

    assert "Sign in to check your answer" in extras[first.pk]
    assert "answer-form" not in extras[first.pk]


def test_the_check_questions_cost_the_same_for_2_as_for_20(learner):
    counts = []
    for count in (2, 20):
        lesson, _, _ = a_lesson_with_checks(count)
        page = lesson_page(slug=lesson.slug, user=learner)
        request = RequestFactory().get("/")
        request.user, request.session = learner, {}
        with CaptureQueriesContext(connection) as queries:
            section_checks(request, page)
        counts.append(len(queries))

    assert counts[0] == counts[1], counts


def test_a_check_answer_goes_back_to_the_lesson_at_the_question(client, learner):
    lesson, (first, _), questions = a_lesson_with_checks()
    html = extras_for(learner, lesson)[first.pk]
    form = answer_form(html, f"/check/{questions[0].pk}/")

    response = client.post(form.action, {**form.fields, "response": "4e6"})

    answer = Answer.objects.get()
    assert response.status_code == 303
    assert response["Location"].endswith(f"?answer={answer.pk}#question-{questions[0].pk}")
    assert answer.mode == "practice"
    shown = extras_for(learner, lesson, f"?answer={answer.pk}")[first.pk]
    assert "Not quite: That is one matrix." in shown


def test_another_learners_answer_in_a_lesson_is_not_found(client, learner):
    from django.http import Http404

    lesson, (first, _), questions = a_lesson_with_checks()
    html = extras_for(learner, lesson)[first.pk]
    form = answer_form(html, f"/check/{questions[0].pk}/")
    client.post(form.action, {**form.fields, "response": "8e6"})

    with pytest.raises(Http404):
        extras_for(UserFactory(), lesson, f"?answer={Answer.objects.get().pk}")


def test_a_check_with_htmx_returns_the_question_alone(client, learner):
    lesson, (first, _), questions = a_lesson_with_checks()
    form = answer_form(extras_for(learner, lesson)[first.pk], f"/check/{questions[0].pk}/")

    response = client.post(
        form.action, {**form.fields, "response": "8e6"}, headers={"HX-Request": "true"}
    )

    body = response.content.decode().strip()
    assert body.startswith(
        f'<article class="question question--answered" id="question-{questions[0].pk}"'
    )
    assert "Right." in body
