"""A coding question in the browser, as plain forms (htmx swaps the results in the same way):
the statement and examples, the editor with the learner's last code, running the examples,
submitting for the hidden tests and the review, the model solution only after a submission;
another learner's submission, a forged form and a server without a sandbox."""

from __future__ import annotations

import re
import shutil

import pytest

from config import sandbox
from config.celery import app
from reviews.models import Answer, Card, CodeSubmission
from tests.factories import (
    SOFTMAX_SOLUTION,
    CodeQuestionFactory,
    QuestionFactory,
    UserFactory,
)
from tests.reviews.web.pages import forms_in

pytestmark = [
    pytest.mark.django_db(transaction=True),  # the run is sent once the submission commits
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]


@pytest.fixture(autouse=True)
def runs_in_process():
    """The code queue's task runs where it is sent, whatever broker is configured."""
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager


def page(client, url):
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def words(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def sent(client, question, source, run="submit"):
    html = page(client, f"/interview/q/{question.key}/practice/")
    form = next(f for f in forms_in(html) if f.action.endswith("/practice/code/"))
    return client.post(form.action, {**form.fields, "source": source, "run": run})


def test_the_page_shows_the_task_the_examples_and_the_starter_but_not_the_solution(client, learner):
    question = CodeQuestionFactory()

    html = page(client, f"/interview/q/{question.key}/practice/")

    assert "The tests check only what <code>softmax(x)</code> returns" in html
    assert "softmax(x=np.array(" in html
    assert "def softmax(x):" in html  # the starter, in the editor
    assert "return e / e.sum" not in html
    assert 'data-code-editor=""' in html
    assert "Run the examples" in html


def test_running_the_examples_shows_each_result_and_reviews_nothing(client, learner):
    question = CodeQuestionFactory()

    response = sent(client, question, SOFTMAX_SOLUTION, run="examples")

    assert response.status_code == 303
    done = words(page(client, response["Location"]))
    assert "The examples" in done
    assert "2 of 2 tests passed." in done
    assert "Examples only: submit to run the hidden tests." in done
    assert "The model solution" not in done
    assert not Answer.objects.exists()


def test_a_submission_shows_its_tests_its_next_review_and_then_the_model_solution(client, learner):
    question = CodeQuestionFactory()
    wrong = SOFTMAX_SOLUTION.replace("x - x.max(axis=-1, keepdims=True)", "x")

    response = sent(client, question, wrong)

    html = page(client, response["Location"])
    text = words(html)
    assert "Your submission" in text
    assert re.search(r"\d of 10 tests passed\. You will see this question again", text)
    assert "Failed: Hidden" in text
    assert "NaN" in text or "infinity" in text
    assert "The model solution" in text
    assert "e.sum(axis=-1, keepdims=True)" in html
    assert Card.objects.get(user=learner, question=question).reps == 1
    # The editor keeps what the learner sent.
    again = page(client, f"/interview/q/{question.key}/practice/")
    assert "e = np.exp(x)" in again


def test_an_htmx_submission_answers_with_the_results_alone(client, learner):
    question = CodeQuestionFactory()
    html = page(client, f"/interview/q/{question.key}/practice/")
    form = next(f for f in forms_in(html) if f.action.endswith("/practice/code/"))

    response = client.post(
        form.action,
        {**form.fields, "source": SOFTMAX_SOLUTION, "run": "submit"},
        headers={"HX-Request": "true"},
    )

    fragment = response.content.decode()
    assert response.status_code == 200
    assert fragment.lstrip().startswith('<section id="results"')
    assert "10 of 10 tests passed." in words(fragment)
    submission = CodeSubmission.objects.get()
    polled = client.get(
        f"/interview/q/{question.key}/practice/code/{submission.pk}/",
        headers={"HX-Request": "true"},
    )
    assert polled.status_code == 200
    assert "hx-trigger" not in polled.content.decode()  # done: nothing more to ask for


def test_a_waiting_submission_asks_again_until_it_is_done(client, learner):
    question = CodeQuestionFactory()
    waiting = CodeSubmission.objects.create(
        user=learner, question=question, run="submit", source=SOFTMAX_SOLUTION, seed=1
    )

    fragment = client.get(
        f"/interview/q/{question.key}/practice/code/{waiting.pk}/", headers={"HX-Request": "true"}
    ).content.decode()

    assert 'hx-trigger="load delay:700ms"' in fragment
    assert "Waiting for a worker to run it" in fragment
    assert "Check again" in fragment  # without JavaScript, a button does the asking


def test_another_learners_submission_is_not_found(client, learner):
    question = CodeQuestionFactory()
    theirs = CodeSubmission.objects.create(
        user=UserFactory(), question=question, run="submit", source="x", seed=1
    )

    assert (
        client.get(f"/interview/q/{question.key}/practice/?submission={theirs.pk}").status_code
        == 404
    )
    assert client.get(f"/interview/q/{question.key}/practice/code/{theirs.pk}/").status_code == 404
    assert client.get(f"/interview/q/{question.key}/practice/?submission=abc").status_code == 404


@pytest.mark.parametrize(
    ("source", "run"),
    [
        ("", "submit"),
        ("x" * 20_001, "submit"),
        ("def softmax(x):\n    return x\x00", "submit"),
        (SOFTMAX_SOLUTION, "forever"),
    ],
)
def test_a_forged_form_is_refused_and_nothing_is_stored(client, learner, source, run):
    question = CodeQuestionFactory()

    response = sent(client, question, source, run=run)

    assert response.status_code == 400
    assert (
        "There is a problem" in response.content.decode()
        or "field-error" in response.content.decode()
    )
    assert not CodeSubmission.objects.exists()


def test_a_question_not_answered_with_code_has_no_editor(client, learner):
    question = QuestionFactory()

    assert (
        client.post(f"/interview/q/{question.key}/practice/code/", {"source": "x"}).status_code
        == 404
    )


def test_without_a_sandbox_the_page_says_so_and_offers_no_form(client, learner, monkeypatch):
    question = CodeQuestionFactory()
    monkeypatch.setattr(
        sandbox, "unavailable_reason", lambda: "bubblewrap (bwrap) is not installed"
    )

    html = page(client, f"/interview/q/{question.key}/practice/")

    assert "Code cannot be run on this server just now." in words(html)
    assert "Bubblewrap (bwrap) is not installed." in words(html)
    assert not [f for f in forms_in(html) if f.action.endswith("/practice/code/")]


def test_a_due_coding_card_in_the_review_session_points_to_its_editor(client, learner):
    question = CodeQuestionFactory()
    sent(client, question, SOFTMAX_SOLUTION)
    from django.utils import timezone

    Card.objects.filter(user=learner).update(due=timezone.now())

    html = page(client, "/review/")

    assert "This one is answered with code." in words(html)
    assert f'href="/interview/q/{question.key}/practice/"' in html


def test_a_visitor_reads_a_coding_questions_page_without_its_solution(client):
    question = CodeQuestionFactory()

    html = page(client, f"/interview/q/{question.key}/")

    assert "The function" in html
    assert "def softmax(x):" in html
    assert "return e / e.sum" not in html
