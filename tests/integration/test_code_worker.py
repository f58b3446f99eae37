"""Coding submissions on a live worker of the `code` queue (Redis in CI), sent over the API by
a real HTTP client: a correct solution passes every hidden test, subtly wrong ones fail naming
the case, hostile ones are contained and reported with the worker alive afterwards, and a
worker killed mid-run leaves its submission to run again, graded once."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app
from reviews.models import Answer, Card, CodeSubmission
from tests.conftest import Api
from tests.factories import SOFTMAX_SOLUTION, CodeQuestionFactory, UserFactory
from tests.integration.test_worker import (
    CONFIGURED_BROKER,
    broker,
    database_url,
    wait_for,
    worker_process,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]

ATTENTION_SOLUTION = """
import numpy as np

def causal_attention(q, k, v):
    t = q.shape[-2]
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    s = np.where(np.triu(np.ones((t, t), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
"""

MHA_SOLUTION = """
import numpy as np

def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads):
    b, t, d = x.shape
    h = d // n_heads
    split = lambda m: m.reshape(b, t, n_heads, h).transpose(0, 2, 1, 3)
    q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(h)
    s = np.where(np.triu(np.ones((t, t), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    out = w / w.sum(axis=-1, keepdims=True) @ v
    return out.transpose(0, 2, 1, 3).reshape(b, t, d) @ w_o
"""


@pytest.fixture
def code_worker(settings) -> Iterator[None]:
    """A worker in this process taking the `code` queue only, as the code workers do."""
    settings.SANDBOX_CPU_SECONDS, settings.SANDBOX_WALL_SECONDS = 3, 6
    settings.SANDBOX_CASE_SECONDS = 1
    with broker(CONFIGURED_BROKER or "memory://localhost/"):
        app.control.purge()
        try:
            with start_worker(
                app,
                pool="threads",
                concurrency=1,
                perform_ping_check=False,
                shutdown_timeout=30,
                queues=["code"],
            ):
                yield
        finally:
            # A worker told which queues to take narrows the app's own list; later workers
            # in this process take every queue again.
            app.amqp.queues._consume_from = None


@pytest.fixture
def learner_api(live_server) -> Api:
    api = Api(live_server.url)
    api.authenticate(UserFactory())
    return api


def submitted(api: Api, question, source: str, run: str = "submit") -> dict:
    """Sends the code, then polls until its run has ended."""
    response = api.post(
        f"/api/v1/code/questions/{question.pk}/submissions/", {"source": source, "run": run}
    )
    assert response.status_code == 202, response.text
    location = response.headers["Location"]
    polled: dict = {}

    def ended() -> bool:
        nonlocal polled
        polled = api.get(location).json()
        return polled["status"] in ("done", "error")

    wait_for(ended, "the submission's run", timeout=90)
    return polled


def failed(polled: dict) -> dict[str, str]:
    return {t["name"]: t["message"] for t in polled["tests"] if not t["passed"]}


def test_a_correct_solution_passes_every_hidden_test(code_worker, learner_api):
    question = CodeQuestionFactory()

    polled = submitted(learner_api, question, SOFTMAX_SOLUTION)

    assert polled["status"] == "done"
    assert polled["score"] == 1.0
    assert polled["passed"] == len(polled["tests"]) == 10
    assert polled["review"]["rating"] == "good"
    assert Answer.objects.count() == 1


@pytest.mark.parametrize(
    ("problem", "solution", "mistake", "where"),
    [
        (
            "softmax",
            SOFTMAX_SOLUTION,
            ("x - x.max(axis=-1, keepdims=True)", "x"),
            "logits up to ±",
        ),
        ("causal_attention", ATTENTION_SOLUTION, ("np.triu(", "np.tril("), "tokens"),
        (
            "multi_head_attention",
            MHA_SOLUTION,
            ("h = d // n_heads", "h = d // n_heads + 1"),
            "heads",
        ),
    ],
    ids=["no-max-subtraction", "mask-on-the-wrong-side", "head-split-off-by-one"],
)
def test_a_subtly_wrong_solution_fails_naming_the_case(
    code_worker, learner_api, problem, solution, mistake, where
):
    question = CodeQuestionFactory(key_points__problem=problem, key_points__solution=solution)

    right = submitted(learner_api, question, solution)
    wrong = submitted(learner_api, question, solution.replace(*mistake))

    assert failed(right) == {}
    names = failed(wrong)
    assert names, "the mistake must show"
    assert all(name.startswith(("hidden ", "example ")) for name in names)
    assert any(where in name for name in names), names
    assert 0 <= wrong["score"] < 1


HOSTILE = {
    "reads the project's files": (
        f"def softmax(x):\n    return open({os.path.abspath('config/settings.py')!r}).read()\n",
        "FileNotFoundError",
    ),
    "reads the service's environment": (
        "import os\ndef softmax(x):\n    return os.environ['SECRET_KEY']\n",
        "KeyError: 'SECRET_KEY'",
    ),
    "opens a socket to the database": (
        "import socket\ndef softmax(x):\n    s = socket.socket(); s.settimeout(1)\n"
        "    s.connect(('127.0.0.1', 5432))\n",
        "ConnectionRefusedError",
    ),
    "opens a socket to the outside": (
        "import socket\ndef softmax(x):\n    s = socket.socket(); s.settimeout(1)\n"
        "    s.connect(('203.0.113.7', 443))\n",
        "Network is unreachable",
    ),
    "forks without end": (
        "import os\ndef softmax(x):\n    while True:\n        os.fork()\n",
        "Resource temporarily unavailable",
    ),
    "allocates 10 GB": (
        "import numpy as np\ndef softmax(x):\n    return np.ones(10 * 2**30 // 8)\n",
        "out of memory",
    ),
    "loops for ever": ("def softmax(x):\n    while True:\n        pass\n", "timed out"),
    "prints a gigabyte": (
        "def softmax(x):\n    for _ in range(1000):\n        print('x' * 1_000_000)\n",
        "File too large",
    ),
    "writes outside its folder": (
        "def softmax(x):\n    open('/in/solution.py', 'w').write('x')\n",
        "Read-only file system",
    ),
    "kills its parent": (
        "import os\ndef softmax(x):\n    os.kill(os.getppid(), 9)\n",
        "PermissionError",
    ),
}


def test_hostile_submissions_are_contained_and_reported_and_the_worker_lives(
    code_worker, learner_api
):
    question = CodeQuestionFactory()

    reported = {}
    for what, (source, expected) in HOSTILE.items():
        polled = submitted(learner_api, question, source, run="examples")
        assert polled["status"] == "done", (what, polled)
        messages = [t["message"] for t in polled["tests"]]
        assert messages, what
        assert any(expected in message for message in messages), (what, messages)
        reported[what] = messages[0]

    # Still alive, and still right about right code.
    assert submitted(learner_api, question, SOFTMAX_SOLUTION)["score"] == 1.0
    assert len(reported) == len(HOSTILE)


@pytest.mark.skipif(
    not CONFIGURED_BROKER.startswith("redis"),
    reason="delivery after a visibility timeout is the Redis broker's (CI runs on Redis)",
)
def test_a_worker_killed_mid_run_leaves_it_to_run_again_and_grades_it_once(tmp_path):
    question = CodeQuestionFactory(
        key_points__solution=SOFTMAX_SOLUTION,
    )
    user = UserFactory()
    slow = SOFTMAX_SOLUTION.replace(
        "def softmax(x):\n", "import time\n\ndef softmax(x):\n    time.sleep(0.4)\n"
    )
    submission = CodeSubmission.objects.create(
        user=user, question=question, run="submit", source=slow, seed=7
    )
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_VISIBILITY_TIMEOUT": "4",
    }
    log = tmp_path / "worker.log"
    command_queue = ["-Q", "code"]
    with broker(CONFIGURED_BROKER):
        app.control.purge()
        with worker_process(env, log, extra=command_queue) as first:
            from reviews.code_tasks import code_submission_run

            code_submission_run.delay(submission.pk)

            def halfway() -> bool:
                row = CodeSubmission.objects.get(pk=submission.pk)
                return row.status == "running" and len(row.tests) >= 2

            wait_for(halfway, "the run half done", timeout=60)
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
        assert CodeSubmission.objects.get(pk=submission.pk).status == "running"

        with worker_process(env, log, extra=command_queue):
            wait_for(
                lambda: CodeSubmission.objects.get(pk=submission.pk).status == "done",
                "the run delivered again",
                timeout=90,
            )
            time.sleep(2)

    ended = CodeSubmission.objects.get(pk=submission.pk)
    assert ended.attempts == 2, log.read_text()[-3000:]
    assert ended.score == 1.0
    assert Answer.objects.filter(user=user).count() == 1
    assert Card.objects.get(user=user, question=question).reps == 1
