"""The question bank: questions, their choices, and the bank's revision number; and the
interview bank's categories and the parts of an interview question beyond its prompt and model
answer. No learner state lives here (that is `reviews`).

A question belongs either to a lesson of a course (and follows one of its sections) or to a
category of the interview bank, never both. `Question.objects.live()` is the courses' questions
(what decks, the queue and teachers read); `Question.objects.interview_bank()` is the bank's."""

from __future__ import annotations

import re

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.html import escape

from course.models import Lesson, LiveManager, LiveQuerySet, Section


class InterviewCategory(models.Model):
    """A category of the interview bank (attention, inference and serving, ...): data, loaded
    from `content/interview/categories.yaml`, archived when it leaves the file."""

    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=80)
    summary = models.CharField(max_length=300)
    position = models.PositiveSmallIntegerField(default=0)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = LiveManager()

    class Meta:
        ordering = ["position", "pk"]
        verbose_name_plural = "interview categories"

    def __str__(self) -> str:
        return self.title


class QuestionQuerySet(LiveQuerySet["Question"]):
    def live(self) -> QuestionQuerySet:
        """The courses' questions still in the content files (the interview bank's are
        `interview_bank()`)."""
        return self.filter(archived_at__isnull=True, lesson__isnull=False)

    def answerable(self) -> QuestionQuerySet:
        """The questions a learner may answer: the courses' in live lessons, and the interview
        bank's in live categories."""
        return self.filter(archived_at__isnull=True).filter(
            models.Q(lesson__isnull=False, lesson__archived_at__isnull=True)
            | models.Q(category__isnull=False, category__archived_at__isnull=True)
        )

    def interview_bank(self) -> QuestionQuerySet:
        """The interview bank's questions still in the files, in live categories."""
        return self.filter(
            archived_at__isnull=True,
            category__isnull=False,
            category__archived_at__isnull=True,
        )


class Level(models.TextChoices):
    JUNIOR = "junior", "Junior"
    MID = "mid", "Mid-level"
    SENIOR = "senior", "Senior"


class Question(models.Model):
    class Kind(models.TextChoices):
        SINGLE_CHOICE = "single_choice", "Single choice"
        MULTIPLE_CHOICE = "multiple_choice", "Multiple choice"
        NUMERIC = "numeric", "Numeric"
        FREE_TEXT = "free_text", "Free text"
        CODE = "code", "Code"

    class Unit(models.TextChoices):
        PERCENT = "percent", "Percent"

    class Topic(models.TextChoices):
        NEURONS = "neurons", "Neurons"
        EMBEDDINGS = "embeddings", "Embeddings and positions"
        ATTENTION = "attention", "Attention"
        MLP = "mlp", "MLP"
        NORMS_RESIDUALS = "norms-residuals", "Norms and residuals"
        PARAMETERS_SCALING = "parameters-scaling", "Parameters and scaling"
        OUTPUT = "output", "Logits and output"

    key = models.SlugField(max_length=80, unique=True, help_text="Stable id in the content files.")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    topic = models.CharField(
        max_length=24, choices=Topic.choices, blank=True, help_text="A course question's topic."
    )
    difficulty = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(5)]
    )
    lesson = models.ForeignKey(
        Lesson, on_delete=models.PROTECT, related_name="questions", null=True, blank=True
    )
    section = models.ForeignKey(
        Section,
        on_delete=models.PROTECT,
        related_name="questions",
        null=True,
        blank=True,
        help_text="The section of its lesson it follows; a question is Pro when its section is.",
    )
    category = models.ForeignKey(
        InterviewCategory,
        on_delete=models.PROTECT,
        related_name="questions",
        null=True,
        blank=True,
        help_text="The interview bank's category, for a question of the bank.",
    )
    level = models.CharField(max_length=8, choices=Level.choices, blank=True)
    position = models.PositiveSmallIntegerField(default=0, help_text="Order within the lesson.")
    interview = models.BooleanField(default=False)
    prompt_markdown = models.TextField()
    prompt_html = models.TextField()
    explanation_markdown = models.TextField(blank=True)
    explanation_html = models.TextField(blank=True)
    model_answer_markdown = models.TextField(blank=True)
    model_answer_html = models.TextField(blank=True)
    generator = models.CharField(
        max_length=40, blank=True, help_text="The engine family that makes each variant."
    )
    # The answer key of a fixed numeric question (generated ones get theirs from the engine).
    answer = models.JSONField(null=True, blank=True, help_text="A number or {low, high, ...}.")
    tolerance = models.JSONField(null=True, blank=True)
    unit = models.CharField(
        max_length=16,
        choices=Unit.choices,
        blank=True,
        help_text="'percent': the answer is in percent, so '66.2%' and '66.2' read the same.",
    )
    mistakes = models.JSONField(default=list, blank=True)
    solution_steps = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(
        default=1, help_text="Goes up whenever what counts as right changes."
    )
    answer_fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = models.Manager.from_queryset(QuestionQuerySet)()

    class Meta:
        ordering = ["lesson__course", "lesson__number", "position", "pk"]
        indexes = [
            models.Index(fields=["lesson", "position"]),
            models.Index(fields=["topic", "kind"]),
            models.Index(fields=["category", "level", "position"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(difficulty__gte=1, difficulty__lte=5),
                name="question_difficulty_1_to_5",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(lesson__isnull=False, section__isnull=False, category__isnull=True)
                    | models.Q(lesson__isnull=True, section__isnull=True, category__isnull=False)
                    & ~models.Q(level="")
                ),
                name="question_in_a_lesson_or_the_interview_bank",
            ),
        ]

    def __str__(self) -> str:
        return self.key

    @property
    def prompt_inline_html(self) -> str:
        """The prompt without its paragraph, to stand in a heading or a link, when it is one
        paragraph (a bank question's usually is); otherwise its text alone."""
        html = self.prompt_html.strip()
        if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
            return html[3:-4]
        return escape(re.sub(r"<[^>]+>", " ", html).strip())

    @property
    def course_id(self) -> int | None:
        """The course of a course question; None for a question of the interview bank, which
        is in no course."""
        return None if self.lesson is None else self.lesson.course_id

    @property
    def in_bank(self) -> bool:
        """Whether it is a question of the interview bank (in a category, not a lesson)."""
        return self.category_id is not None

    @property
    def is_choice(self) -> bool:
        return self.kind in (self.Kind.SINGLE_CHOICE, self.Kind.MULTIPLE_CHOICE)

    @property
    def is_generated(self) -> bool:
        return bool(self.generator)

    @property
    def generator_or_none(self) -> str | None:
        return self.generator or None

    @property
    def level_or_none(self) -> str | None:
        return self.level or None


class InterviewEntry(models.Model):
    """What an interview question of the bank holds beyond its prompt and model answer: the
    deeper notes, the key points an interviewer listens for, the common wrong turns, follow-ups,
    related questions, sources, an optional diagram, and the lesson that teaches it.

    `search_title`, `search_answer` (model answer and key points) and `search_notes` are its
    words as plain text. On PostgreSQL (migration 0011) a generated `search` column weighs all
    three, question first, for full-text search with a GIN index, and a smaller generated
    `search_rank` (question and answer, not the notes) orders the matches; elsewhere the bank is
    searched by substring."""

    question = models.OneToOneField(
        Question, on_delete=models.CASCADE, primary_key=True, related_name="entry"
    )
    notes_markdown = models.TextField()
    notes_html = models.TextField()
    key_points = models.JSONField(default=list)
    wrong_turns = models.JSONField(default=list)
    follow_ups = models.JSONField(default=list)
    related = models.JSONField(default=list, help_text="Keys of related bank questions.")
    sources = models.JSONField(default=list)
    diagram = models.CharField(max_length=80, blank=True)
    # A coding question: graded by the engine's problem (`engine.coding`) in the sandbox.
    code_problem = models.CharField(
        max_length=60, blank=True, help_text="The engine's coding problem that grades it."
    )
    code_starter = models.TextField(blank=True, help_text="The code the learner starts from.")
    code_solution = models.TextField(
        blank=True, help_text="The model solution, shown after a submission."
    )
    teaching_lesson = models.ForeignKey(
        Lesson,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The course lesson that teaches it, where there is one.",
    )
    search_title = models.TextField(blank=True)
    search_answer = models.TextField(blank=True)
    search_notes = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "interview entries"

    def __str__(self) -> str:
        return f"entry of question {self.question_id}"


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    position = models.PositiveSmallIntegerField()
    text_markdown = models.TextField()
    text_html = models.TextField()
    is_correct = models.BooleanField(default=False)
    explanation_html = models.TextField(blank=True)

    class Meta:
        ordering = ["question", "position"]
        constraints = [
            models.UniqueConstraint(fields=["question", "position"], name="choice_position_once")
        ]

    def __str__(self) -> str:
        return self.text_markdown[:60]


class BankRevision(models.Model):
    """Goes up whenever loaded content may change which questions learners get as new, or in
    which order. One row; a learner's `Deck` remembers the number it was built from."""

    number = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"bank revision {self.number}"
