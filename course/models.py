"""What is taught: courses, lessons, their sections and glossary, each learner's progress, and
teachers' classrooms with their assignments.

Content rows are written by `manage.py load_content` from the files under content/ and keyed by
stable slugs; what disappears from the files is archived (archived_at set), never deleted, so
learners' progress and reports keep pointing at something.
"""

import secrets
from typing import Self, TypeVar

from django.conf import settings
from django.db import models

_M = TypeVar("_M", bound=models.Model)


class Access(models.TextChoices):
    FREE = "free", "Free"
    PRO = "pro", "Pro"


class LiveQuerySet(models.QuerySet[_M]):
    def live(self) -> Self:
        """Rows still in the content files (not archived)."""
        return self.filter(archived_at__isnull=True)


LiveManager = models.Manager.from_queryset(LiveQuerySet)


class Course(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    summary = models.TextField(max_length=500)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = LiveManager()

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


class Lesson(models.Model):
    course = models.ForeignKey(Course, on_delete=models.PROTECT, related_name="lessons")
    slug = models.SlugField(max_length=80, unique=True)
    number = models.PositiveSmallIntegerField(help_text="Position in the course, from 1.")
    title = models.CharField(max_length=200)
    summary = models.TextField(max_length=500)
    minutes = models.PositiveSmallIntegerField()
    access = models.CharField(max_length=8, choices=Access.choices, default=Access.FREE)
    prerequisites = models.ManyToManyField(
        "self", symmetrical=False, related_name="unlocks", blank=True
    )
    takeaways = models.JSONField(default=list, blank=True)
    sources = models.JSONField(default=list, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = LiveManager()

    class Meta:
        ordering = ["course", "number"]
        indexes = [models.Index(fields=["course", "number"])]

    def __str__(self) -> str:
        return f"{self.number}. {self.title}"


class Section(models.Model):
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="sections")
    slug = models.SlugField(max_length=80)
    position = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=200)
    access = models.CharField(max_length=8, choices=Access.choices, default=Access.FREE)
    body_markdown = models.TextField()
    body_html = models.TextField(help_text="Rendered from the Markdown and sanitized on save.")
    archived_at = models.DateTimeField(null=True, blank=True)

    objects = LiveManager()

    class Meta:
        ordering = ["lesson", "position"]
        constraints = [
            models.UniqueConstraint(fields=["lesson", "slug"], name="section_slug_per_lesson")
        ]

    def __str__(self) -> str:
        return self.title


class GlossaryTerm(models.Model):
    course = models.ForeignKey(Course, on_delete=models.PROTECT, related_name="glossary")
    slug = models.SlugField(max_length=80)
    term = models.CharField(max_length=120)
    aliases = models.JSONField(default=list, blank=True)
    definition_markdown = models.TextField()
    definition_html = models.TextField()
    lesson = models.ForeignKey(
        Lesson, on_delete=models.SET_NULL, null=True, blank=True, related_name="glossary_terms"
    )
    archived_at = models.DateTimeField(null=True, blank=True)

    objects = LiveManager()

    class Meta:
        ordering = ["term"]
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="glossary_slug_per_course")
        ]

    def __str__(self) -> str:
        return self.term


class LessonProgress(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lesson_progress"
    )
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="progress")
    started_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "lesson"], name="progress_once_per_lesson")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.lesson_id}"


class Report(models.Model):
    """A learner's "spotted a mistake" note about a lesson or a question."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        FIXED = "fixed", "Fixed"
        DISMISSED = "dismissed", "Dismissed"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports"
    )
    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, null=True, blank=True, related_name="reports"
    )
    # The question bank lives in a later app; the id is kept as a plain value here.
    question_id = models.PositiveBigIntegerField(null=True, blank=True)
    message = models.TextField(max_length=2000)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(lesson__isnull=False) | models.Q(question_id__isnull=False),
                name="report_names_lesson_or_question",
            )
        ]

    def __str__(self) -> str:
        return f"Report {self.pk} ({self.status})"


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
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["teacher", "created_at"])]

    def __str__(self) -> str:
        return self.name


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
    # The question bank lives in a later app; ids are kept as plain values, like Report's.
    question_ids = models.JSONField(default=list, blank=True)
    due_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at", "pk"]
        indexes = [models.Index(fields=["classroom", "due_at"])]

    def __str__(self) -> str:
        return self.title
