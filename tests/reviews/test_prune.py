from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from knox.models import AuthToken

from accounts.models import Notification
from accounts.services import token_create
from reviews.models import IdempotencyRecord
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_pruning_removes_only_what_has_expired(settings):
    user = UserFactory()
    old, _fresh = (
        IdempotencyRecord.objects.create(
            user=user, key=key, fingerprint="f", status_code=201, body={}
        )
        for key in ("old", "fresh")
    )
    IdempotencyRecord.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_TTL + 60)
    )
    expired, _ = token_create(user=user)
    live, _ = token_create(user=user)
    AuthToken.objects.filter(pk=expired.pk).update(expiry=timezone.now() - timedelta(days=1))
    for key, days in (("old", settings.NOTIFICATION_TTL_DAYS + 1), ("recent", 3)):
        Notification.objects.create(
            user=user, kind="reminder", key=key, title="T", body="B",
            created_at=timezone.now() - timedelta(days=days),
        )  # fmt: skip

    out = StringIO()
    call_command("prune_expired", stdout=out)
    call_command("prune_expired", stdout=out)

    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    assert list(AuthToken.objects.values_list("pk", flat=True)) == [live.pk]
    assert list(Notification.objects.values_list("key", flat=True)) == ["recent"]
    assert (
        "Deleted 1 expired token(s), 1 idempotency record(s), 1 old notification(s), 0 "
        "expired export(s) and 0 empty due slot(s)." in out.getvalue()
    )
    assert (
        "Deleted 0 expired token(s), 0 idempotency record(s), 0 old notification(s), 0 "
        "expired export(s) and 0 empty due slot(s)." in out.getvalue()
    )
