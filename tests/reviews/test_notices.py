"""Due-review reminders and leech notices, as services (the live worker runs them in
tests/integration/test_worker.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Notification, User
from accounts.services import notification_emails_send
from reviews import notices
from reviews.cards import new_card
from reviews.models import Card
from tests.factories import BankQuestionFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db

# 18:05 UTC: 18:05 in London (winter), 19:05 in Berlin, 13:05 in New York, 03:05 in Tokyo
# (the next day).
NOW = datetime(2026, 12, 1, 18, 5, tzinfo=UTC)


def due_card(
    user: User, *, due: datetime = NOW - timedelta(hours=1), question=None, **fields
) -> Card:
    card = new_card(user=user, question=question or QuestionFactory())
    card.state = fields.pop("state", Card.State.REVIEW)
    card.stability, card.difficulty = 3.0, 5.0
    card.due = due
    card.last_review = due - timedelta(days=3)
    card.reps = 2
    for name, value in fields.items():
        setattr(card, name, value)
    card.save()
    return card


def learner(**fields) -> User:
    return UserFactory(timezone=fields.pop("timezone", "Europe/London"), reminder_hour=18, **fields)


class Owed:
    """Collects the learners each batch says are owed an e-mail, and sends them."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []

    def __call__(self, user_ids: list[int]) -> None:
        self.batches.append(user_ids)
        notification_emails_send(user_ids=user_ids, now=NOW)


def sweep(now: datetime = NOW, **kwargs) -> notices.SweepOutcome:
    return notices.reminders_sweep(now=now, emails_owed=Owed(), **kwargs)


def test_a_learner_with_due_cards_at_their_hour_gets_one_email_and_one_notification(
    django_capture_on_commit_callbacks,
):
    ada = learner()
    due_card(ada)
    due_card(ada)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = sweep()

    assert outcome.reminded == 1
    notification = Notification.objects.get(user=ada)
    assert notification.kind == Notification.Kind.REMINDER
    assert notification.title == "2 reviews are waiting"
    assert notification.data == {"due": 2}
    assert notification.emailed_at is not None
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [ada.email]
    assert message.subject == "2 reviews are waiting"
    assert message.extra_headers["Message-ID"] == f"<notification-{notification.pk}@residual.local>"
    assert notification.key == "reminder:2026-12-01"
    ada.refresh_from_db()
    assert ada.reminded_on == NOW.date()


def test_sweeping_again_the_same_day_reminds_nobody_twice(django_capture_on_commit_callbacks):
    ada = learner()
    due_card(ada)
    with django_capture_on_commit_callbacks(execute=True):
        sweep()
        sweep(NOW + timedelta(minutes=15))
        sweep(NOW + timedelta(hours=5))  # 23:05 in London, still the same local day
    assert Notification.objects.filter(user=ada).count() == 1
    assert len(mail.outbox) == 1


def test_the_next_local_day_reminds_again(django_capture_on_commit_callbacks):
    ada = learner()
    due_card(ada)
    with django_capture_on_commit_callbacks(execute=True):
        sweep()
        sweep(NOW + timedelta(days=1))
    assert Notification.objects.filter(user=ada).count() == 2
    assert len(mail.outbox) == 2


def test_a_learner_whose_hour_has_not_come_in_their_zone_waits(django_capture_on_commit_callbacks):
    new_york = learner(timezone="America/New_York")  # 13:05 there
    due_card(new_york)
    tokyo = learner(timezone="Asia/Tokyo")  # 03:05 the next morning there
    due_card(tokyo)
    berlin = learner(timezone="Europe/Berlin")  # 19:05: the hour has come and gone
    due_card(berlin)
    with django_capture_on_commit_callbacks(execute=True):
        sweep()
    assert list(Notification.objects.values_list("user", flat=True)) == [berlin.pk]
    with django_capture_on_commit_callbacks(execute=True):
        sweep(datetime(2026, 12, 1, 23, 0, tzinfo=UTC))  # 18:00 in New York
    assert set(Notification.objects.values_list("user", flat=True)) == {berlin.pk, new_york.pk}
    assert Notification.objects.get(user=new_york).key == "reminder:2026-12-01"
    # Tokyo's 18:00 comes at 09:00 UTC on its 2 December: reminded for that date.
    with django_capture_on_commit_callbacks(execute=True):
        sweep(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    assert Notification.objects.get(user=tokyo).key == "reminder:2026-12-02"


def test_nothing_due_no_reminder(django_capture_on_commit_callbacks):
    ada = learner()
    due_card(ada, due=NOW + timedelta(days=2))  # not yet due
    due_card(ada, suspended=True)  # suspended
    due_card(ada, state=Card.State.NEW)  # never studied: not a review
    UserFactory(is_active=False, timezone="Europe/London", reminder_hour=18)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = sweep()
    assert outcome.reminded == 0
    assert not Notification.objects.exists()
    assert not mail.outbox


def test_no_email_wanted_or_no_address_the_notification_only(django_capture_on_commit_callbacks):
    quiet = learner(email_reminders=False)
    due_card(quiet)
    no_address = learner(email="")
    due_card(no_address)
    with django_capture_on_commit_callbacks(execute=True):
        sweep()
    assert Notification.objects.count() == 2
    assert not Notification.objects.filter(email=True).exists()
    assert not mail.outbox


def test_an_email_a_stopped_run_left_unsent_goes_with_the_next_sweep(
    django_capture_on_commit_callbacks,
):
    ada = learner()
    due_card(ada)
    # The batch committed, then the process stopped before the e-mail task was queued.
    notices.reminders_sweep(now=NOW, emails_owed=lambda ids: None)
    assert Notification.objects.get(user=ada).emailed_at is None
    assert not mail.outbox

    with django_capture_on_commit_callbacks(execute=True):
        outcome = sweep(NOW + timedelta(minutes=15))
    assert outcome.resumed == 1
    assert outcome.reminded == 0
    assert len(mail.outbox) == 1
    # A reminder e-mail whose moment has passed is not sent at all.
    bob = learner()
    due_card(bob)
    notices.reminders_sweep(now=NOW, emails_owed=lambda ids: None)
    assert notification_emails_send(user_ids=[bob.pk], now=NOW + timedelta(days=1)) == 0


def test_sending_the_owed_emails_twice_sends_each_once(django_capture_on_commit_callbacks):
    learners = [learner() for _ in range(3)]
    for each in learners:
        due_card(each)
    notices.reminders_sweep(now=NOW, emails_owed=lambda ids: None)
    ids = [each.pk for each in learners]
    assert notification_emails_send(user_ids=ids, now=NOW) == 3
    assert notification_emails_send(user_ids=ids, now=NOW) == 0
    assert len(mail.outbox) == 3


def build(count: int) -> None:
    question = QuestionFactory()
    users = User.objects.bulk_create(
        [
            User(username=f"bulk{n}", email=f"bulk{n}@example.com", timezone="Europe/London")
            for n in range(count)
        ]
    )
    cards = []
    for user in users:
        card = new_card(user=user, question=question)
        card.state, card.stability, card.difficulty = Card.State.REVIEW, 3.0, 5.0
        card.due, card.last_review = NOW - timedelta(hours=1), NOW - timedelta(days=3)
        cards.append(card)
    Card.objects.bulk_create(cards)


def statements(queries: CaptureQueriesContext) -> list[str]:
    """The queries, less the savepoints that the test's own transaction adds around a batch."""
    return [
        q["sql"]
        for q in queries.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
    ]


@pytest.mark.parametrize("learners", [5, 50])
def test_the_sweep_queries_grow_with_batches_not_learners(
    learners, django_capture_on_commit_callbacks
):
    build(learners)
    owed: list[list[int]] = []
    with (
        CaptureQueriesContext(connection) as queries,
        django_capture_on_commit_callbacks(execute=True),
    ):
        outcome = notices.reminders_sweep(now=NOW, emails_owed=owed.append, batch_size=100)
    assert outcome.reminded == learners
    assert outcome.batches == 1
    assert len(owed) == 1
    assert sorted(owed[0]) == sorted(User.objects.values_list("pk", flat=True))
    # Resume, zones, then per batch: the learners with their due counts, their notifications,
    # the date they were reminded on.
    assert len(statements(queries)) == 5, statements(queries)


def test_batches_split_the_learners_and_each_has_the_same_queries():
    build(25)
    with CaptureQueriesContext(connection) as queries:
        outcome = notices.reminders_sweep(now=NOW, emails_owed=lambda ids: None, batch_size=10)
    assert (outcome.batches, outcome.reminded) == (3, 25)
    assert len(statements(queries)) == 2 + 3 * 3
    assert Notification.objects.count() == 25


def test_a_leech_notice_is_written_once_and_only_for_a_leech():
    ada = learner()
    card = due_card(ada, lapses=8, leech=True, suspended=True)
    assert notices.leech_notify(card_id=card.pk) is True
    assert notices.leech_notify(card_id=card.pk) is False
    notice = Notification.objects.get(user=ada)
    assert notice.kind == Notification.Kind.LEECH
    assert notice.data == {"card": card.pk, "question": card.question_id, "lapses": 8}
    assert "8 times" in notice.body
    assert not notice.email

    card.leech = False  # unsuspended and cleared since the task was queued
    card.save()
    Notification.objects.all().delete()
    assert notices.leech_notify(card_id=card.pk) is False
    assert notices.leech_notify(card_id=10**9) is False
    assert not Notification.objects.exists()


def test_a_leech_of_the_interview_bank_sends_the_learner_to_its_model_answer():
    ada = learner()
    card = due_card(ada, question=BankQuestionFactory(), lapses=8, leech=True, suspended=True)

    assert notices.leech_notify(card_id=card.pk) is True

    body = Notification.objects.get(user=ada).body
    assert "Reread its model answer and notes, then unsuspend it" in body
    assert "lesson" not in body


@pytest.mark.django_db(transaction=True)  # each batch really commits
def test_a_sweep_stopped_between_batches_leaves_the_rest_to_the_next_one_and_nobody_twice():
    build(25)
    calls: list[list[int]] = []

    def dies_after_the_first_batch(user_ids: list[int]) -> None:
        calls.append(user_ids)
        raise SystemExit("worker killed")

    with pytest.raises(SystemExit):
        notices.reminders_sweep(now=NOW, emails_owed=dies_after_the_first_batch, batch_size=10)
    assert Notification.objects.count() == 10  # the first batch committed, nothing more

    outcome = notices.reminders_sweep(now=NOW, emails_owed=Owed(), batch_size=10)
    assert len(calls) == 1
    assert outcome.resumed == 10  # the first batch's e-mails, never queued
    assert outcome.reminded == 15
    assert Notification.objects.count() == 25
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        User.objects.values_list("email", flat=True)
    )
