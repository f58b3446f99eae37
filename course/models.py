"""What is taught: courses, lessons, their sections and glossary, each learner's progress, and
their "spotted a mistake" reports.

Content rows are written by `manage.py load_content` from the files under content/ and keyed by
stable slugs; what disappears from the files is archived (archived_at set), never deleted, so
learners' progress and reports keep pointing at something.
"""

from typing import Self, TypeVar

from django.conf import settings
from django.db import models
from django.utils import timezone

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
    # Set by the service from the request's time, so a first completion never precedes it.
    started_at = models.DateTimeField(default=timezone.now)
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


class ContentRevision(models.Model):
    """Takes a new random value with every change to the content: courses, lessons, sections,
    glossary terms, and (through the question bank's own signals) questions and choices. One
    row; what pages build from content is kept in each process for one value
    (`course.revisions`). Random rather than counted: a count would come back to a number it
    had before after a rollback or a restored backup, with other content behind it."""

    stamp = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"content revision {self.stamp:x}"
