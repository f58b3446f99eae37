"""Teachers' classrooms: a class on one course, its members, and the work set for it."""

import secrets

from django.conf import settings
from django.db import models

from course.models import Course, Lesson

JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Capitals and digits without look-alikes (no 0/O, 1/I/L), so a code read aloud survives."""
JOIN_CODE_LENGTH = 10


def new_join_code() -> str:
    """A fresh join code: 31^10 (about 8 * 10^14) possibilities, from a CSPRNG."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


class Classroom(models.Model):
    """A teacher's class on one course. The teacher sees members' work on that course only."""

    name = models.CharField(max_length=120)
    course = models.ForeignKey(Course, on_delete=models.PROTECT, related_name="classrooms")
    # A deleted teacher's classrooms go with them (and with those, memberships and assignments).
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="classrooms_taught"
    )
    join_code = models.CharField(max_length=16, unique=True, default=new_join_code)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="classrooms", blank=True
    )
    # Pro seats a school's licence gives this class: its first `pro_seats` members (by when
    # they joined) have Pro while they are members. Set by staff in the admin.
    pro_seats = models.PositiveIntegerField(default=0)
    # An archived class is read-only: its code no longer joins, its assignments are not shown
    # to learners, and its seats are handed back. The teacher can still read it, and restore it.
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["teacher", "created_at"])]

    def __str__(self) -> str:
        return self.name

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None


class Membership(models.Model):
    """A learner in a classroom. Leaving deletes the row: a former member is a stranger."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["classroom", "joined_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["classroom", "user"], name="membership_once")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.classroom_id}"


class Assignment(models.Model):
    """Work set for a classroom: a lesson to complete and/or questions to answer correctly,
    each before `due_at`."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="assignments")
    title = models.CharField(max_length=200)
    lesson = models.ForeignKey(
        Lesson, on_delete=models.PROTECT, null=True, blank=True, related_name="assignments"
    )
    # Plain ids, checked against the course's questions when the assignment is set.
    question_ids = models.JSONField(default=list, blank=True)
    due_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at", "pk"]
        indexes = [models.Index(fields=["classroom", "due_at"])]

    def __str__(self) -> str:
        return self.title
