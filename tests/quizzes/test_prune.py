from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from knox.models import AuthToken

from accounts.services import token_create
from quizzes.models import IdempotencyRecord
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

    out = StringIO()
    call_command("prune_expired", stdout=out)
    call_command("prune_expired", stdout=out)

    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    assert list(AuthToken.objects.values_list("pk", flat=True)) == [live.pk]
    assert "Deleted 1 expired token(s) and 1 idempotency record(s)." in out.getvalue()
    assert "Deleted 0 expired token(s) and 0 idempotency record(s)." in out.getvalue()
