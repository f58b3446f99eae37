"""The learner's own days: they begin at `day_starts_at_hour` in the learner's time zone, so a
late-night review counts for the day it belongs to, wherever the learner is."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from accounts.models import User


def day_start(*, user: User, now: datetime) -> datetime:
    """When the learner's current study day began, as an aware datetime."""
    return day_start_in(user.timezone, user.day_starts_at_hour, now=now)


def day_start_in(zone: str, hour: int, *, now: datetime) -> datetime:
    """When the study day that begins at `hour` in `zone` began, as an aware datetime."""
    local = now.astimezone(ZoneInfo(zone))
    start = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if local < start:
        start -= timedelta(days=1)
    return start


def study_date(*, user: User, now: datetime) -> date:
    """The date that names the learner's current study day (the day it began on)."""
    return date_of_day(day_start(user=user, now=now), hour=user.day_starts_at_hour)


def date_of_day(start: datetime, *, hour: int) -> date:
    """The date that names the study day that began at `start`, `hour` o'clock."""
    return (start - timedelta(hours=hour)).date()


def streak(active: set[date], today: date) -> int:
    """Consecutive study days with a review, ending today (or yesterday, if today is young)."""
    day = today if today in active else today - timedelta(days=1)
    count = 0
    while day in active:
        count += 1
        day -= timedelta(days=1)
    return count
