"""What every page's layout needs: the signed-in learner's unread notifications, counted only
when a page shows the bell (one query)."""

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from accounts.selectors import unread_count


def site(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"unread_notifications": 0}
    return {"unread_notifications": SimpleLazyObject(lambda: _unread(user))}


def _unread(user: Any) -> int:
    return unread_count(user_id=user.pk)
