"""A classroom's Pro seats: its first `pro_seats` members, in the order they joined, have Pro
while they are members and the class is not archived. Held as grants in accounts (source
`classroom`), opened and ended through `accounts.entitlements`.
"""

import functools
from typing import Any

from django.db import transaction

from accounts import entitlements
from accounts.models import Grant
from classrooms.models import Classroom, Membership


def reference(classroom_id: int) -> str:
    return f"classroom:{classroom_id}"


def seats_sync(*, classroom_id: int) -> tuple[set[int], set[int]]:
    """Gives the class's seats to the members who should hold them now and takes them from
    anyone else; returns who gained and who lost one. Idempotent; the class's row is locked,
    so two learners joining at once cannot both take the last seat."""
    with transaction.atomic():
        classroom = Classroom.objects.select_for_update().filter(pk=classroom_id).first()
        holders: list[int] = []
        if classroom is not None and classroom.archived_at is None and classroom.pro_seats:
            holders = list(
                Membership.objects.filter(classroom_id=classroom_id)
                .order_by("joined_at", "pk")
                .values_list("user_id", flat=True)[: classroom.pro_seats]
            )
        return entitlements.grants_sync(
            source=Grant.Source.CLASSROOM, reference=reference(classroom_id), user_ids=holders
        )


def seats_taken(*, classroom: Classroom) -> int:
    return Grant.objects.filter(
        source=Grant.Source.CLASSROOM, reference=reference(classroom.pk), ended_at__isnull=True
    ).count()


def free_seats_of_deleted_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    """When a seat holder deletes their account, their memberships go by cascade; the seats they
    held pass to the next members once the deletion has committed (pre_delete runs inside the
    deletion's transaction, so the hand-over waits for it, and is dropped if it rolls back)."""
    held = list(
        Membership.objects.filter(user_id=instance.pk, classroom__pro_seats__gt=0).values_list(
            "classroom_id", flat=True
        )
    )
    for classroom_id in held:
        transaction.on_commit(functools.partial(seats_sync, classroom_id=classroom_id))
