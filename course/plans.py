"""What Free and Pro give, said once for the plans page and `GET /api/v1/plans/`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accounts import billing, entitlements
from accounts.models import Grant
from course import selectors
from course.models import Access

FREE = (
    "Every free lesson in full, with its check questions and the worked answers.",
    "The opening sections of every Pro lesson.",
    "Spaced-repetition reviews of every question you can open, on the web and in the app.",
    "Your stats, your cards and the course's glossary.",
    "Joining your teacher's classes.",
)
PRO = (
    "The sections of the Pro lessons that go deeper, and the check questions that follow them.",
    "Those questions' cards in your reviews, scheduled like the rest.",
)

SOURCE_WORDS = {
    Grant.Source.SUBSCRIPTION: "your subscription",
    Grant.Source.LICENCE: "a licence code",
    Grant.Source.CLASSROOM: "a seat in your class",
    Grant.Source.STAFF: "the people who run this site",
}


@dataclass(frozen=True)
class Holding:
    """One reason the learner has Pro now."""

    source: str
    words: str
    ends_at: datetime | None  # None: while it lasts (a class seat, staff)
    note: str


def holdings(user: Any) -> list[Holding]:
    if not getattr(user, "is_authenticated", False) or not entitlements.has_pro(user):
        return []
    return [
        Holding(
            source=g.source,
            words=SOURCE_WORDS.get(Grant.Source(g.source), g.source),
            ends_at=g.ends_at,
            note=g.note,
        )
        for g in entitlements.open_grants(user=user)
    ]


def pro_lessons() -> list[dict[str, Any]]:
    return [
        {
            "lesson": lesson,
            "free": [s for s in lesson.sections.all() if s.access != Access.PRO],
            "pro": [s for s in lesson.sections.all() if s.access == Access.PRO],
        }
        for lesson in selectors.pro_lessons()
    ]


def subscription_state(user: Any) -> dict[str, bool]:
    """What the billing part of the page offers this user."""
    configured = billing.configured()
    signed_in = bool(getattr(user, "is_authenticated", False))
    return {
        "billing_configured": configured,
        "subscribed": configured and signed_in and billing.subscribed(user),
        "has_customer": configured and signed_in and billing.customer_id(user) is not None,
    }
