"""Writes on classrooms, memberships and assignments: one function per action, keyword-only
and typed."""

from collections.abc import Sequence
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from classrooms import seats, selectors
from classrooms.models import Assignment, Classroom, Membership, new_join_code
from course.models import Course, Lesson


class ClassroomRefused(Exception):
    """A classroom action that cannot be done, naming the field at fault (None: the request)."""

    def __init__(self, *, field: str | None, code: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.code = code
        self.message = message


_CODE_ATTEMPTS = 5


def _sync_seats(classroom: Classroom) -> None:
    """After a change to who is in the class, or whether it is open: its Pro seats follow.
    A class without seats (most) costs nothing more than this check."""
    if classroom.pro_seats:
        seats.seats_sync(classroom_id=classroom.pk)


def classroom_set_seats(*, classroom: Classroom, pro_seats: int) -> Classroom:
    """Staff set how many Pro seats the class carries; the members who gain or lose one do
    at once."""
    with transaction.atomic():
        classroom.pro_seats = pro_seats
        classroom.full_clean(exclude=["join_code"])
        classroom.save(update_fields=["pro_seats"])
        seats.seats_sync(classroom_id=classroom.pk)
    return classroom


def _save_with_fresh_code(classroom: Classroom) -> None:
    """Saves with a new join code, drawing again in the (vanishingly rare) case of a clash."""
    for attempt in range(_CODE_ATTEMPTS):
        classroom.join_code = new_join_code()
        try:
            with transaction.atomic():
                classroom.save()
            return
        except IntegrityError:
            if attempt == _CODE_ATTEMPTS - 1:
                raise


def classroom_create(*, teacher: User, name: str, course: Course) -> Classroom:
    classroom = Classroom(teacher=teacher, name=name, course=course)
    classroom.full_clean(exclude=["join_code"])
    _save_with_fresh_code(classroom)
    return classroom


def classroom_rename(*, classroom: Classroom, name: str) -> Classroom:
    classroom.name = name
    classroom.full_clean(exclude=["join_code"])
    classroom.save(update_fields=["name"])
    return classroom


def classroom_rotate_code(*, classroom: Classroom) -> Classroom:
    """A new join code; the old one stops working at once. Members stay members."""
    _save_with_fresh_code(classroom)
    return classroom


def classroom_archive(*, classroom: Classroom) -> Classroom:
    """Archives the class: its code stops joining, learners no longer see its assignments, and
    its Pro seats are handed back. Members, assignments and progress stay for the teacher."""
    if classroom.archived_at is None:
        classroom.archived_at = timezone.now()
        classroom.save(update_fields=["archived_at"])
    _sync_seats(classroom)
    return classroom


def classroom_restore(*, classroom: Classroom) -> Classroom:
    """Brings an archived class back as it was."""
    if classroom.archived_at is not None:
        classroom.archived_at = None
        classroom.save(update_fields=["archived_at"])
    _sync_seats(classroom)
    return classroom


def classroom_delete(*, classroom: Classroom) -> None:
    """Deletes the classroom with its memberships and assignments (learners' work stays); its
    seats' Pro ends with it."""
    with transaction.atomic():
        pk = classroom.pk
        classroom.delete()
        seats.seats_sync(classroom_id=pk)


def classroom_join(*, user: User, join_code: str) -> tuple[Membership, bool]:
    """Joins the classroom with this code; returns the membership and whether it is new."""
    classroom = selectors.classroom_by_code(join_code=join_code)
    if classroom is None:
        raise ClassroomRefused(
            field="join_code",
            code="unknown_code",
            message="No classroom has this join code; check it with your teacher.",
        )
    if classroom.teacher_id == user.pk:
        raise ClassroomRefused(
            field="join_code", code="own_classroom", message="You teach this classroom."
        )
    if classroom.archived_at is not None:
        raise ClassroomRefused(
            field="join_code",
            code="archived",
            message="This classroom is archived and takes no new members; ask your teacher.",
        )
    try:
        with transaction.atomic():
            membership, created = Membership.objects.get_or_create(classroom=classroom, user=user)
    except IntegrityError:  # a concurrent join by the same learner made it first
        membership, created = Membership.objects.get(classroom=classroom, user=user), False
    membership.classroom = classroom
    if created:
        _sync_seats(classroom)
    return membership, created


def classroom_leave(*, classroom: Classroom, user: User) -> None:
    """The learner leaves; from now on the teacher sees nothing of theirs."""
    Membership.objects.filter(classroom=classroom, user=user).delete()
    _sync_seats(classroom)


def member_remove(*, classroom: Classroom, user_id: int) -> bool:
    """The teacher removes a learner; False when they were not a member."""
    deleted, _ = Membership.objects.filter(classroom=classroom, user_id=user_id).delete()
    if deleted:
        _sync_seats(classroom)
    return bool(deleted)


def assignment_create(
    *,
    classroom: Classroom,
    title: str,
    due_at: datetime,
    lesson: Lesson | None = None,
    question_ids: Sequence[int] = (),
) -> Assignment:
    """An assignment of a lesson and/or questions, all of the classroom's course."""
    ids = _assignment_items(classroom=classroom, lesson=lesson, question_ids=question_ids)
    assignment = Assignment(
        classroom=classroom, title=title, lesson=lesson, question_ids=ids, due_at=due_at
    )
    assignment.full_clean()
    assignment.save()
    return assignment


def _assignment_items(
    *, classroom: Classroom, lesson: Lesson | None, question_ids: Sequence[int]
) -> list[int]:
    """The question ids without repeats, once the lesson and questions are the course's own."""
    ids = list(dict.fromkeys(question_ids))
    if lesson is None and not ids:
        raise ClassroomRefused(
            field="lesson",
            code="required",
            message="Give a lesson, some question_ids, or both.",
        )
    if lesson is not None and lesson.course_id != classroom.course_id:
        raise ClassroomRefused(
            field="lesson",
            code="not_in_course",
            message=f"The lesson '{lesson.slug}' is not part of this classroom's course.",
        )
    if ids:
        outside = sorted(
            set(ids) - selectors.course_question_ids(course_id=classroom.course_id, ids=ids)
        )
        if outside:
            raise ClassroomRefused(
                field="question_ids",
                code="not_in_course",
                message="Not questions of this classroom's course: "
                + ", ".join(str(i) for i in outside)
                + ".",
            )
    return ids


def assignment_update(
    *,
    assignment: Assignment,
    title: str,
    due_at: datetime,
    lesson: Lesson | None = None,
    question_ids: Sequence[int] = (),
) -> Assignment:
    """Changes an assignment under the rules for setting one; who has done it is worked out
    again from the learners' work, against the new due time."""
    ids = _assignment_items(
        classroom=assignment.classroom, lesson=lesson, question_ids=question_ids
    )
    assignment.title, assignment.due_at = title, due_at
    assignment.lesson, assignment.question_ids = lesson, ids
    assignment.full_clean()
    assignment.save(update_fields=["title", "due_at", "lesson", "question_ids"])
    return assignment


def assignment_delete(*, assignment: Assignment) -> None:
    """Deletes the assignment; the learners' work stays theirs."""
    assignment.delete()
