"""Reads on classrooms: who may see one and as whom, members, assignments, and the export of
what a user teaches and belongs to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet

from accounts.models import User
from classrooms.models import JOIN_CODE_ALPHABET, Assignment, Classroom, Membership
from quizzes.models import Question


class Role:
    TEACHER = "teacher"
    MEMBER = "member"


@dataclass(frozen=True)
class ClassroomAccess:
    """A classroom as the caller may see it, and as whom."""

    classroom: Classroom
    role: str

    @property
    def is_teacher(self) -> bool:
        return self.role == Role.TEACHER


def classroom_access(*, user: Any, classroom_id: int) -> ClassroomAccess:
    """The classroom, if the caller teaches it or is a member now; raises Classroom.DoesNotExist
    otherwise (a stranger, a former member and another teacher alike). One query."""
    classroom = (
        Classroom.objects.select_related("course", "teacher")
        .filter(
            Q(teacher=user) | Q(pk__in=Membership.objects.filter(user=user).values("classroom")),
            pk=classroom_id,
        )
        .annotate(member_count=Count("memberships"))
        .get()
    )
    role = Role.TEACHER if classroom.teacher_id == user.pk else Role.MEMBER
    return ClassroomAccess(classroom=classroom, role=role)


def classrooms_of(*, user: User) -> QuerySet[Classroom]:
    """The classrooms the user teaches or belongs to, newest first, with member counts."""
    return (
        Classroom.objects.filter(
            Q(teacher=user) | Q(pk__in=Membership.objects.filter(user=user).values("classroom"))
        )
        .select_related("course", "teacher")
        .annotate(member_count=Count("memberships"))
        .order_by("-created_at", "-pk")
    )


def normalized_join_code(raw: str) -> str:
    """What the learner typed, as stored: capitals, without spaces or dashes."""
    return "".join(raw.split()).replace("-", "").upper()


def join_code_is_well_formed(code: str) -> bool:
    return 8 <= len(code) <= 16 and all(c in JOIN_CODE_ALPHABET for c in code)


def classroom_by_code(*, join_code: str) -> Classroom | None:
    code = normalized_join_code(join_code)
    if not join_code_is_well_formed(code):
        return None
    return Classroom.objects.select_related("course", "teacher").filter(join_code=code).first()


def classroom_members(*, classroom: Classroom) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(classroom=classroom)
        .select_related("user")
        .order_by("user__username", "pk")
    )


def classroom_assignments(*, classroom: Classroom) -> QuerySet[Assignment]:
    return (
        Assignment.objects.filter(classroom=classroom)
        .select_related("lesson")
        .order_by("due_at", "pk")
    )


def course_question_ids(*, course_id: int, ids: list[int]) -> set[int]:
    """Which of `ids` are live questions of the course."""
    return set(
        Question.objects.live()
        .filter(pk__in=ids, lesson__course_id=course_id, lesson__archived_at__isnull=True)
        .values_list("pk", flat=True)
    )


def export_classrooms_taught(user: User) -> list[dict[str, Any]]:
    classrooms = (
        Classroom.objects.filter(teacher=user)
        .select_related("course")
        .prefetch_related(
            Prefetch("assignments", queryset=Assignment.objects.select_related("lesson"))
        )
        .annotate(member_count=Count("memberships"))
        .order_by("pk")
    )
    return [
        {
            "name": c.name,
            "course": c.course.slug,
            "join_code": c.join_code,
            "members": c.member_count,
            "created_at": c.created_at.isoformat(),
            "assignments": [
                {
                    "title": a.title,
                    "lesson": a.lesson.slug if a.lesson else None,
                    "question_ids": a.question_ids,
                    "due_at": a.due_at.isoformat(),
                }
                for a in c.assignments.all()
            ],
        }
        for c in classrooms
    ]


def export_memberships(user: User) -> list[dict[str, Any]]:
    return [
        {
            "classroom": m.classroom.name,
            "course": m.classroom.course.slug,
            "teacher": m.classroom.teacher.username,
            "joined_at": m.joined_at.isoformat(),
        }
        for m in Membership.objects.filter(user=user)
        .select_related("classroom__course", "classroom__teacher")
        .order_by("pk")
    ]


@dataclass(frozen=True)
class LearnerClass:
    """A class the learner belongs to, with its assignments (none shown once it is archived)
    and whether the learner did each in time."""

    classroom: Classroom
    assignments: list[tuple[Assignment, bool]]


def learner_classes(*, user: User) -> list[LearnerClass]:
    """The user's classes as a member, newest first. Three queries, or one with none."""
    from classrooms.progress import assignments_done  # progress builds on these selectors

    rooms = list(
        Classroom.objects.filter(memberships__user=user)
        .select_related("course", "teacher")
        .order_by("-created_at", "-pk")
    )
    if not rooms:
        return []
    live = [r.pk for r in rooms if r.archived_at is None]
    work = list(
        Assignment.objects.filter(classroom_id__in=live)
        .select_related("lesson")
        .order_by("due_at", "pk")
    )
    done = assignments_done(assignments=work, user_ids=[user.pk])
    return [
        LearnerClass(
            classroom=room,
            assignments=[
                (a, done.get((a.pk, user.pk), False)) for a in work if a.classroom_id == room.pk
            ],
        )
        for room in rooms
    ]
