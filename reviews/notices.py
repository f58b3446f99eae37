"""What the service tells learners on its own: due-review reminders and leech notices.

Reminders are swept every quarter hour. A learner is reminded once their chosen local hour has
come, when they have review cards due and have not been reminded on their local date yet: one
in-app notification (its key names that date, so there is never a second) and, if they want it,
one e-mail. The sweep walks learners in bounded batches of three queries each (who, with how
many cards due; their notifications; the date they were reminded on), however many learners a
batch holds. E-mails go out after the batch commits, from a separate task (`emails_owed`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.db.models import Case, Count, DateField, Exists, OuterRef, Q, Subquery, Value, When

from accounts.models import Notification, User
from accounts.services import EMAIL_FRESH_FOR, notification_create, notifications_add
from reviews.models import Card

EmailsOwed = Callable[[list[int]], None]
"""Called after a batch commits with the learners who are owed an e-mail."""


@dataclass(frozen=True)
class SweepOutcome:
    batches: int
    reminded: int
    resumed: int
    """Learners whose e-mail an earlier run owed and did not send; handed on again."""


def reminders_sweep(
    *, now: datetime, emails_owed: EmailsOwed, batch_size: int | None = None
) -> SweepOutcome:
    size = batch_size or settings.REMINDER_BATCH_SIZE
    resumed = _resume_emails(now=now, emails_owed=emails_owed, batch_size=size)
    zones = _zone_dates(now)
    if not zones:
        return SweepOutcome(batches=0, reminded=0, resumed=resumed)
    # The learners whose hour has come in their zone and who were not reminded on their local
    # date yet. (A column on the learner, not a look-up of notifications: each batch's query
    # then costs the same however many learners were reminded before it.)
    reminder_due = Q()
    for zone, (hour, day) in zones.items():
        reminder_due |= Q(timezone=zone, reminder_hour__lte=hour) & (
            Q(reminded_on__isnull=True) | Q(reminded_on__lt=day)
        )
    due_cards = Card.objects.filter(user=OuterRef("pk"), suspended=False, due__lte=now).exclude(
        state=Card.State.NEW
    )
    due_count = due_cards.order_by().values("user").annotate(n=Count("pk")).values("n")
    candidates = (
        User.objects.filter(reminder_due, is_active=True)
        .filter(Exists(due_cards))
        .annotate(due=Subquery(due_count))
        .order_by("pk")
        .values_list("pk", "timezone", "email", "email_reminders", "due")
    )
    batches = reminded = 0
    after = 0
    while True:
        with transaction.atomic():
            batch = list(candidates.filter(pk__gt=after)[:size])
            if not batch:
                break
            batches += 1
            reminded += len(batch)
            after = batch[-1][0]
            emailed = _remind(batch, zones=zones, now=now)
            if emailed:
                transaction.on_commit(lambda ids=emailed: emails_owed(ids))  # type: ignore[misc]
        if len(batch) < size:
            break
    return SweepOutcome(batches=batches, reminded=reminded, resumed=resumed)


def _zone_dates(now: datetime) -> dict[str, tuple[int, date]]:
    """Each time zone learners use, with its local hour and date now: one query."""
    zones = User.objects.filter(is_active=True).values_list("timezone", flat=True).distinct()
    dates = {}
    for zone in zones:
        local = now.astimezone(ZoneInfo(zone))
        dates[zone] = (local.hour, local.date())
    return dates


def _remind(
    batch: list[tuple[int, str, str, bool, int]],
    *,
    zones: dict[str, tuple[int, date]],
    now: datetime,
) -> list[int]:
    notifications = []
    emailed = []
    for pk, zone, email, email_reminders, due in batch:
        wants_email = bool(email) and email_reminders
        notifications.append(
            Notification(
                user_id=pk,
                kind=Notification.Kind.REMINDER,
                key=_reminder_key(zones[zone][1]),
                title=_reminder_title(due),
                body=_reminder_body(due),
                data={"due": due},
                email=wants_email,
                created_at=now,
            )
        )
        if wants_email:
            emailed.append(pk)
    notifications_add(notifications=notifications)
    batch_zones = sorted({row[1] for row in batch})
    User.objects.filter(pk__in=[row[0] for row in batch]).update(
        reminded_on=Case(
            *(When(timezone=zone, then=Value(zones[zone][1])) for zone in batch_zones),
            output_field=DateField(),
        )
    )
    return emailed


def _reminder_key(day: date) -> str:
    return f"reminder:{day.isoformat()}"


def _reminder_title(due: int) -> str:
    return "1 review is waiting" if due == 1 else f"{due} reviews are waiting"


def _reminder_body(due: int) -> str:
    cards = "card is" if due == 1 else "cards are"
    return (
        f"{due} {cards} due for review today. A few minutes now, while you still half "
        "remember them, is what moves each one further out."
    )


def _resume_emails(*, now: datetime, emails_owed: EmailsOwed, batch_size: int) -> int:
    """Hands on the e-mails a stopped run left unsent, reminders or others (one query)."""
    owed = list(
        Notification.objects.filter(
            email=True,
            emailed_at__isnull=True,
            created_at__gte=now - EMAIL_FRESH_FOR,
        )
        .order_by("user_id")
        .values_list("user_id", flat=True)
        .distinct()
    )
    for start in range(0, len(owed), batch_size):
        emails_owed(owed[start : start + batch_size])
    return len(owed)


def leech_notify(*, card_id: int) -> bool:
    """Tells the learner a card became a leech; once per card and lapse count."""
    card = Card.objects.select_related("question").filter(pk=card_id, leech=True).first()
    if card is None:  # undone, forgotten or deleted since
        return False
    _, created = notification_create(
        user_id=card.user_id,
        kind=Notification.Kind.LEECH,
        key=f"leech:{card.pk}:{card.lapses}",
        title="A card keeps slipping",
        body=(
            f"You have missed “{_excerpt(card.question.prompt_markdown)}” {card.lapses} times "
            "after learning it, so "
            "it is suspended for now. "
            + (
                "Reread its model answer and notes, "
                if card.question.lesson_id is None
                else "Reread its lesson, "
            )
            + "then unsuspend it, or forget it to learn it again from the start."
        ),
        data={"card": card.pk, "question": card.question_id, "lapses": card.lapses},
    )
    return created


def _excerpt(markdown: str, length: int = 80) -> str:
    line = " ".join(markdown.split())
    return line if len(line) <= length else line[: length - 1].rstrip() + "…"
