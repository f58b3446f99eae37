"""Coding questions answered over the API (tasks in-process here; tests/integration runs them
on a live worker of the `code` queue): stored before they run, their tests' results, a
submission's review made once however often its run is repeated, and what a hostile client
or a missing sandbox gets."""

from __future__ import annotations

import shutil
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from config import sandbox
from config.background import send as background_send
from config.celery import app
from config.throttles import ScopedRateThrottle
from quizzes.coding import hidden_seed
from reviews import code_runs
from reviews.code_tasks import code_submission_run
from reviews.models import Answer, Card, CodeSubmission
from tests.conftest import assert_problem
from tests.factories import SOFTMAX_SOLUTION, CodeQuestionFactory, QuestionFactory, UserFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
    ),
]

UNSHIFTED = (
    "import numpy as np\n\ndef softmax(x):\n    e = np.exp(x)\n"
    "    return e / e.sum(axis=-1, keepdims=True)\n"
)


@pytest.fixture(autouse=True)
def runs_in_process():
    """The code queue's task runs where it is sent, whatever broker is configured (a live
    worker runs it in tests/integration/test_code_worker.py)."""
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager


@pytest.fixture
def learner(api):
    user = UserFactory()
    api.authenticate(user)
    return user


def send(api, question, source, run="submit", **fields):
    return api.post(
        f"/api/v1/code/questions/{question.pk}/submissions/",
        {"source": source, "run": run, **fields},
    )


def test_a_correct_submission_passes_every_test_and_steps_the_card_once(api, learner):
    question = CodeQuestionFactory()

    response = send(api, question, SOFTMAX_SOLUTION)

    assert response.status_code == 202, response.text
    body = response.json()
    assert response.headers["Location"] == f"/api/v1/code/submissions/{body['id']}/"
    polled = api.get(f"/api/v1/code/submissions/{body['id']}/").json()
    assert polled["status"] == "done"
    assert polled["score"] == 1.0
    assert polled["passed"] == len(polled["tests"]) == 10
    assert all(t["passed"] and t["message"] == "passed" for t in polled["tests"])
    assert polled["review"]["rating"] == "good"
    assert polled["solution"] == SOFTMAX_SOLUTION
    card = Card.objects.get(user=learner, question=question)
    assert (card.reps, card.lesson_id) == (1, None)
    answer = Answer.objects.get(user=learner)
    assert (answer.status, answer.score, answer.mode) == ("correct", 1.0, "review")
    assert CodeSubmission.objects.get().answer_id == answer.pk


def test_a_subtly_wrong_submission_is_partly_right_and_names_each_failed_case(api, learner):
    question = CodeQuestionFactory()

    polled = send(api, question, UNSHIFTED).json()

    assert polled["status"] == "done"
    assert 0 < polled["score"] < 1
    failed = [t for t in polled["tests"] if not t["passed"]]
    assert failed
    assert all(t["hidden"] and "±" in t["name"] for t in failed)
    assert all("expected" not in t["message"] for t in failed)
    assert polled["review"]["rating"] == "hard"
    assert Answer.objects.get().status == "partial"


def test_running_the_examples_reviews_nothing_and_shows_no_solution(api, learner):
    question = CodeQuestionFactory()

    polled = send(api, question, SOFTMAX_SOLUTION, run="examples").json()

    assert [t["name"] for t in polled["tests"]] == ["example 1", "example 2"]
    assert polled["review"] is None
    assert "solution" not in polled
    assert not Answer.objects.exists()
    assert not Card.objects.exists()


def test_a_coding_question_serves_its_starter_and_examples_but_not_its_solution(api, learner):
    question = CodeQuestionFactory()

    served = api.get(f"/api/v1/questions/{question.pk}/").json()
    listed = api.get("/api/v1/interview/questions/").json()["results"][0]

    assert served["kind"] == "code"
    assert served["code"]["function"] == "softmax"
    assert served["code"]["starter"] == question.entry.code_starter
    assert served["code"]["examples"][0]["call"].startswith("softmax(x=np.array(")
    assert listed["code"] == served["code"]
    assert "return e / e.sum" not in str(served) + str(listed)
    # Not answered as text, nor revealed.
    typed = api.post(f"/api/v1/questions/{question.pk}/answers/", {"response": "1"})
    revealed = api.post(f"/api/v1/questions/{question.pk}/reveal/", {})
    assert_problem(typed, 422)
    assert_problem(revealed, 422)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "source"),
        ({"source": ""}, "source"),
        ({"source": None}, "source"),
        ({"source": ["def softmax(x): ..."]}, "source"),
        ({"source": "x" * 20_001}, "source"),
        ({"source": "def softmax(x):\n    return x\x00\n"}, "source"),
        ({"source": SOFTMAX_SOLUTION, "run": "forever"}, "run"),
        ({"source": SOFTMAX_SOLUTION, "client_id": "not-a-uuid"}, "client_id"),
    ],
)
def test_what_a_hostile_client_sends_is_refused_naming_the_field(api, learner, body, field):
    question = CodeQuestionFactory()

    response = api.post(f"/api/v1/code/questions/{question.pk}/submissions/", body)

    assert_problem(response, 400, field)
    assert not CodeSubmission.objects.exists()


def test_only_coding_questions_take_code_and_only_their_owner_reads_a_submission(
    api, other_api, learner
):
    question = CodeQuestionFactory()
    mine = send(api, question, SOFTMAX_SOLUTION).json()["id"]
    other_api.authenticate(UserFactory())

    assert_problem(send(api, QuestionFactory(), SOFTMAX_SOLUTION), 422)
    assert_problem(other_api.get(f"/api/v1/code/submissions/{mine}/"), 404)
    assert_problem(api.get("/api/v1/code/submissions/999999999/"), 404)
    assert_problem(
        api.anonymous().post(f"/api/v1/code/questions/{question.pk}/submissions/", {}), 401
    )


def test_the_same_client_id_gives_back_the_same_submission(api, learner):
    question = CodeQuestionFactory()
    client_id = str(uuid.uuid4())

    first = send(api, question, SOFTMAX_SOLUTION, client_id=client_id).json()
    again = send(api, question, UNSHIFTED, client_id=client_id).json()

    assert again["id"] == first["id"]
    assert CodeSubmission.objects.count() == 1
    assert Answer.objects.count() == 1


def test_submissions_are_throttled_per_learner(api, learner, monkeypatch):
    question = CodeQuestionFactory()
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "code", "2/hour")

    codes = [send(api, question, SOFTMAX_SOLUTION, run="examples").status_code for _ in range(3)]

    assert codes == [202, 202, 429]
    assert CodeSubmission.objects.count() == 2


def test_without_a_sandbox_no_code_is_stored_or_run(api, learner, monkeypatch):
    question = CodeQuestionFactory()
    monkeypatch.setattr(
        sandbox, "unavailable_reason", lambda: "bubblewrap (bwrap) is not installed"
    )

    body = assert_problem(send(api, question, SOFTMAX_SOLUTION), 503)

    assert body["type"].endswith("/problems/code-unavailable/")
    assert "bubblewrap" in body["detail"]
    assert not CodeSubmission.objects.exists()


# --- the run, repeated -------------------------------------------------------------------------


def stored(user, question, source=SOFTMAX_SOLUTION, run="submit", **fields):
    return CodeSubmission.objects.create(
        user=user,
        question=question,
        run=run,
        source=source,
        seed=hidden_seed(question.key),
        **fields,
    )


def test_a_run_delivered_twice_grades_once():
    user, question = UserFactory(), CodeQuestionFactory()
    submission = stored(user, question)

    first = code_runs.code_submission_run(submission_id=submission.pk)
    again = code_runs.code_submission_run(submission_id=submission.pk)

    assert (first, again) == ("done, score 1.00", "ended already")
    assert Answer.objects.count() == 1
    assert Card.objects.get(user=user).reps == 1


def test_two_runs_at_once_end_it_once():
    """A worker thought dead is still running when its message is delivered again: both run,
    the first to end writes the end and the review, the other finds it ended."""
    user, question = UserFactory(), CodeQuestionFactory()
    submission = stored(user, question)
    assert code_runs._started(submission.pk, timezone.now()) is not None
    assert code_runs._started(submission.pk, timezone.now()) is not None  # the second delivery

    ends = [code_runs._ended(submission.pk, [{"name": "x", "passed": True}], 1.0) for _ in range(2)]

    assert ends == ["done, score 1.00", "ended by another run"]
    assert Answer.objects.count() == 1
    assert CodeSubmission.objects.get().attempts == 2


def test_a_run_that_keeps_dying_ends_in_error_after_its_attempts():
    user, question = UserFactory(), CodeQuestionFactory()
    submission = stored(user, question, attempts=code_runs.MAX_ATTEMPTS, status="running")

    assert code_runs.code_submission_run(submission_id=submission.pk) == "ended already"

    submission.refresh_from_db()
    assert submission.status == "error"
    assert "submit it again" in submission.message
    assert not Answer.objects.exists()


def test_the_sweep_sends_again_what_waits_too_long(monkeypatch):
    user, question = UserFactory(), CodeQuestionFactory()
    now = timezone.now()
    waiting = stored(user, question, created_at=now - timedelta(minutes=30))
    stored(user, question, created_at=now - timedelta(minutes=1))  # still young
    stored(user, question, created_at=now - timedelta(hours=2), status="done", score=1.0)

    resent = code_runs.code_submissions_resume(
        now=now, resend=lambda pk: background_send(code_submission_run, pk)
    )

    assert resent == 1
    waiting.refresh_from_db()
    assert waiting.status == "done"  # sent again, and run (in-process here)
