"""Background work on a live Celery worker.

The broker is the one configured (Redis in CI, `CELERY_BROKER_URL`); with none configured, an
in-memory broker for a worker in this process, and a folder for a worker in another process.
The database is the test database, shared with the worker, so each test commits its rows.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from email import message_from_bytes
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.core import mail
from django.db import connection
from django.utils import timezone

from accounts.models import Notification, User
from accounts.tasks import notification_emails_send
from classrooms import tasks as classroom_tasks
from config.celery import app
from reviews import fitting, fitting_tasks, tasks
from reviews.cards import new_card
from reviews.models import Answer, Card, IdempotencyRecord
from tests.conftest import Api
from tests.factories import ClassroomFactory, MembershipFactory, QuestionFactory, UserFactory
from tests.reviews.test_fitting import simulate

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
CONFIGURED_BROKER = os.environ.get("CELERY_BROKER_URL", "")


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"waited {timeout}s for {what}")


@contextmanager
def broker(url: str, **options: object) -> Iterator[None]:
    """Tasks sent from this process go to the broker at `url` (not run in-process)."""
    saved = {"broker_url": app.conf.broker_url, "task_always_eager": app.conf.task_always_eager}
    saved_options = app.conf.broker_transport_options
    environ = os.environ.get("CELERY_BROKER_URL")
    os.environ["CELERY_BROKER_URL"] = url  # Celery reads it before its own setting
    app.conf.update(broker_url=url, task_always_eager=False)
    app.conf.broker_transport_options = {**saved_options, **options}
    app._after_fork()  # drops pooled connections to the previous broker
    try:
        yield
    finally:
        if environ is None:
            os.environ.pop("CELERY_BROKER_URL")
        else:
            os.environ["CELERY_BROKER_URL"] = environ
        app.conf.update(saved)
        app.conf.broker_transport_options = saved_options
        app._after_fork()


@pytest.fixture
def worker() -> Iterator[None]:
    """A worker in this process with two threads, so a task can run twice at once."""
    with broker(CONFIGURED_BROKER or "memory://localhost/"):
        app.control.purge()
        with start_worker(
            app, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=30
        ):
            yield


def reminder_learner(**fields) -> User:
    """A learner whose reminder hour, in their own zone, came at the start of today."""
    user = UserFactory(reminder_hour=0, **fields)
    card = new_card(user=user, question=QuestionFactory())
    card.state, card.stability, card.difficulty, card.reps = Card.State.REVIEW, 3.0, 5.0, 2
    card.due = timezone.now() - timedelta(hours=1)
    card.last_review = card.due - timedelta(days=3)
    card.save()
    return user


def zone_before_its_reminder_hour() -> tuple[str, int]:
    """A zone and an hour still to come there today."""
    now = timezone.now()
    for zone in ("Pacific/Kiritimati", "Asia/Tokyo", "Europe/London", "America/New_York"):
        hour = now.astimezone(ZoneInfo(zone)).hour
        if hour < 23:
            return zone, hour + 1
    raise AssertionError("some zone is before 23:00")


def reminded_everyone(users: list[User]) -> Callable[[], bool]:
    def check() -> bool:
        return (
            Notification.objects.filter(user__in=users, kind="reminder").count() == len(users)
            and not Notification.objects.filter(email=True, emailed_at__isnull=True).exists()
        )

    return check


def test_a_learner_at_their_hour_gets_one_email_and_one_notification_however_often_swept(worker):
    ada = reminder_learner(timezone="Europe/Berlin")
    zone, hour = zone_before_its_reminder_hour()
    later = reminder_learner(timezone=zone)
    User.objects.filter(pk=later.pk).update(reminder_hour=hour)

    # The sweep sent twice at once (two beats, or a message delivered twice), then again.
    tasks.reminders_sweep.delay()
    tasks.reminders_sweep.delay()
    wait_for(reminded_everyone([ada]), "the reminder")
    tasks.reminders_sweep.delay()
    notification_emails_send.delay([ada.pk])  # the e-mail task delivered a second time
    wait_for(lambda: not _queued(), "the queue to drain")
    time.sleep(2)  # what was taken last has run by now

    assert Notification.objects.filter(user=ada).count() == 1
    assert [m.to for m in mail.outbox] == [[ada.email]]
    assert not Notification.objects.filter(user=later).exists()


def _queued() -> int:
    if not CONFIGURED_BROKER:
        return 0
    with app.connection_for_write() as conn:
        return int(conn.default_channel.client.llen("celery"))


def test_every_task_has_time_limits():
    ours = {name: task for name, task in app.tasks.items() if name.split(".")[0] in {
        "accounts", "quizzes", "course", "reviews", "classrooms"}}  # fmt: skip
    assert set(ours) >= {
        "accounts.notification_emails_send",
        "quizzes.reminders_sweep",
        "quizzes.leech_notify",
        "quizzes.refit_sweep",
        "quizzes.scheduler_refit",
        "quizzes.prune_expired",
        "quizzes.teacher_digests",
        "quizzes.teacher_digest",
        "reviews.cards_rederive",
    }
    for name, task in ours.items():
        assert task.soft_time_limit, name
        assert task.time_limit, name
        assert task.soft_time_limit < task.time_limit, name
        assert task.time_limit < settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]


def test_each_periodic_and_id_task_run_twice_does_its_work_once(worker, monkeypatch):
    fits: list[object] = []
    fit = fitting.scheduler_fit

    def counted_fit(*, user, now):
        fits.append(now)
        return fit(user=user, now=now)

    monkeypatch.setattr(fitting, "scheduler_fit", counted_fit)
    learner = UserFactory()
    simulate(learner, cards=60, reviews_each=9)
    leech = new_card(user=learner, question=QuestionFactory())
    leech.state, leech.stability, leech.difficulty = Card.State.RELEARNING, 1.0, 9.0
    leech.due, leech.lapses, leech.leech, leech.suspended = timezone.now(), 8, True, True
    leech.save()
    IdempotencyRecord.objects.create(
        user=learner, key="old", fingerprint="x", body={}, status_code=201
    )
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(days=30))

    classroom = ClassroomFactory(teacher__email="teacher@example.com")
    MembershipFactory(classroom=classroom, user=learner)

    for _ in range(2):
        tasks.leech_notify.delay(leech.pk)
        fitting_tasks.refit_sweep.delay()
        tasks.prune_expired.delay()
        classroom_tasks.teacher_digests.delay()
    wait_for(
        lambda: (
            Notification.objects.filter(kind="leech").exists()
            and User.objects.filter(pk=learner.pk, scheduler_checked_at__isnull=False).exists()
            and not IdempotencyRecord.objects.exists()
            and Notification.objects.filter(kind="digest", emailed_at__isnull=False).exists()
        ),
        "the tasks",
    )
    fitting_tasks.scheduler_refit.delay(learner.pk)  # a refit with nothing new since: nothing done
    classroom_tasks.teacher_digest.delay(classroom.teacher_id)  # this week has its digest already
    wait_for(lambda: not _queued(), "the queue to drain")
    time.sleep(3)  # what was taken last has run by now

    checked = User.objects.get(pk=learner.pk).scheduler_checked_at
    assert Notification.objects.filter(kind="leech").count() == 1
    assert Notification.objects.filter(kind="digest").count() == 1
    assert [m.to for m in mail.outbox] == [["teacher@example.com"]]
    # Every refit stamps the time it ran: one stamp, so one fit however often it was sent.
    assert fits == [checked]


def test_cards_re_derived_on_the_worker_after_a_fit_sent_twice_are_derived_once(api, worker):
    from tests.reviews.test_rederive import fitted, reviewed

    learner = UserFactory(date_joined=timezone.now() - timedelta(days=60))
    api.authenticate(learner)
    reviewed(api, QuestionFactory.create_batch(3), days_ago=(29, 20, 8))
    fitted(learner)
    logs_before = list(Answer.objects.order_by("pk").values_list("card_after", flat=True))

    fitting_tasks.cards_rederive.delay(learner.pk)
    fitting_tasks.cards_rederive.delay(learner.pk)
    wait_for(
        lambda: User.objects.filter(
            pk=learner.pk, scheduler_rederived_at=learner.scheduler_fitted_at
        ).exists(),
        "the re-derivation",
    )
    wait_for(lambda: not _queued(), "the queue to drain")
    time.sleep(2)  # what was taken last has run by now

    logs_after = list(Answer.objects.order_by("pk").values_list("card_after", flat=True))
    assert logs_after != logs_before
    expected = fitting.cards_rederive(user_id=learner.pk)  # once more, here: nothing moves
    assert expected == 3
    assert list(Answer.objects.order_by("pk").values_list("card_after", flat=True)) == logs_after


def test_answering_works_with_redis_unreachable(live_server, settings):
    """The broker and the cache both point at a port where nothing listens."""
    dead = "redis://127.0.0.1:9/0"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": dead,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    learner = UserFactory()
    card = new_card(user=learner, question=QuestionFactory())
    card.state, card.stability, card.difficulty, card.reps = Card.State.REVIEW, 2.0, 8.0, 9
    card.lapses = settings.LEECH_LAPSES - 1
    card.due = timezone.now() - timedelta(days=1)
    card.last_review = card.due - timedelta(days=2)
    card.save()
    api = Api(live_server.url)
    api.authenticate(learner)

    with broker(dead):
        started = time.monotonic()
        response = api.post(
            f"/api/v1/questions/{card.question_id}/answers/", {"response": "5"}, timeout=20
        )
        elapsed = time.monotonic() - started

    assert response.status_code == 201, response.text
    assert elapsed < 5
    assert response.json()["review"]["rating"] == "again"
    assert Answer.objects.filter(user=learner).count() == 1
    card.refresh_from_db()
    assert (card.lapses, card.leech, card.suspended) == (settings.LEECH_LAPSES, True, True)
    # The leech notice could not be queued, so it was written here instead.
    assert Notification.objects.filter(user=learner, kind="leech").count() == 1


def database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def worker_process(
    env: dict[str, str], log: Path, extra: tuple[str, ...] | list[str] = ()
) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo"]
    command += ["--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "INFO"]
    command += list(extra)
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def test_a_worker_killed_mid_send_leaves_nobody_emailed_twice_and_nobody_forgotten(tmp_path):
    learners = [reminder_learner(timezone="UTC") for _ in range(6)]
    outbox = tmp_path / "mail"
    outbox.mkdir()
    broker_url = CONFIGURED_BROKER or "filesystem://"
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker_url,
        "CELERY_BROKER_FOLDER": str(tmp_path / "broker"),
        "CELERY_VISIBILITY_TIMEOUT": "2",
        "EMAIL_BACKEND": "tests.support.slow_mail.EmailBackend",
        "EMAIL_FILE_PATH": str(outbox),
        "SLOW_MAIL_SECONDS": "0.4",
    }
    # Without a broker server: the folder layout config/settings.py gives CELERY_BROKER_FOLDER.
    messages, control = tmp_path / "broker" / "messages", tmp_path / "broker" / "control"
    messages.mkdir(parents=True)
    control.mkdir()
    folder = {
        "data_folder_in": str(messages),
        "data_folder_out": str(messages),
        "control_folder": str(control),
    }
    with broker(broker_url, **({} if CONFIGURED_BROKER else folder)):
        if CONFIGURED_BROKER:
            app.control.purge()
        log = tmp_path / "worker.log"
        with worker_process(env, log) as first:
            tasks.reminders_sweep.delay()
            wait_for(lambda: len(list(outbox.iterdir())) >= 2, "the first e-mails", timeout=90)
            # Half a send later the worker is in the middle of the third message: killed
            # mid-batch, with some sent and the rest not. (Killed in the instant between the
            # mail server taking a message and its row being marked, a worker would leave
            # that one message to be sent again: the one window no database closes.)
            time.sleep(float(env["SLOW_MAIL_SECONDS"]) / 2)
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
        sent_before = len(list(outbox.iterdir()))
        assert sent_before < len(learners), log.read_text()[-3000:]

        with worker_process(env, log):
            tasks.reminders_sweep.delay()  # the next quarter hour's sweep
            wait_for(reminded_everyone(learners), "every reminder", timeout=90)
            time.sleep(3)  # anything redelivered after the kill has run by now

    recipients = Counter(message_from_bytes(path.read_bytes())["To"] for path in outbox.iterdir())
    assert recipients == Counter({user.email: 1 for user in learners})
    assert Notification.objects.filter(kind="reminder").count() == len(learners)


TAKEN = re.compile(r"Task accounts\.notification_emails_send\[[^\]]+\] received")


def broker_state() -> str:
    """What the Redis broker holds of taken and waiting messages, for a failure's message."""
    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        return (
            f"queue {client.llen('celery')}, unacked {client.hlen('unacked')}, "
            f"unacked_index {client.zrange('unacked_index', 0, -1, withscores=True)}, "
            f"unacked_mutex ttl {client.ttl('unacked_mutex')}, now {time.time()}"
        )


@pytest.mark.skipif(
    not CONFIGURED_BROKER.startswith("redis"),
    reason="delivery after a visibility timeout is the Redis broker's (CI runs on Redis)",
)
def test_a_task_taken_by_a_worker_that_is_killed_is_delivered_again_after_the_timeout(tmp_path):
    learner = UserFactory()
    Notification.objects.create(
        user=learner, kind="reminder", key="k", title="t", body="b", email=True
    )
    outbox = tmp_path / "mail"
    outbox.mkdir()
    timeout = 4
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_VISIBILITY_TIMEOUT": str(timeout),
        "EMAIL_BACKEND": "tests.support.slow_mail.EmailBackend",
        "EMAIL_FILE_PATH": str(outbox),
        "SLOW_MAIL_SECONDS": "120",  # the first worker is still sending when it is killed
    }
    log = tmp_path / "worker.log"
    with broker(CONFIGURED_BROKER):
        app.control.purge()
        with worker_process(env, log) as first:
            notification_emails_send.delay([learner.pk])
            # Taken, not merely listed: the worker's banner names every task it knows.
            wait_for(lambda: TAKEN.search(log.read_text()) is not None, "the task taken")
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
        killed = time.monotonic()

        with worker_process({**env, "SLOW_MAIL_SECONDS": "0"}, log):
            try:
                wait_for(lambda: any(outbox.iterdir()), "the task delivered again", timeout=60)
            except AssertionError as error:
                raise AssertionError(
                    f"{error}\n{broker_state()}\n{log.read_text()[-3000:]}"
                ) from error
            waited = time.monotonic() - killed

    # It came back only once its visibility timeout had passed: redelivered, not taken afresh.
    assert timeout - 1 < waited < timeout + 15, log.read_text()[-3000:]
    assert len(list(outbox.iterdir())) == 1
    assert Notification.objects.get(user=learner).emailed_at is not None
