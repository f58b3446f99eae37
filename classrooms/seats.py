"""A classroom's Pro seats: its first `pro_seats` members, in the order they joined, have Pro
while they are members and the class is not archived. Held as grants in accounts (source
`classroom`), opened and ended through `accounts.entitlements`.
"""

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
