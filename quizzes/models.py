"""The question bank: questions, their choices, and the bank's revision number. No learner
state lives here (that is `reviews`)."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from course.models import Lesson, LiveManager, Section


class Question(models.Model):
    class Kind(models.TextChoices):
        SINGLE_CHOICE = "single_choice", "Single choice"
        MULTIPLE_CHOICE = "multiple_choice", "Multiple choice"
        NUMERIC = "numeric", "Numeric"
        FREE_TEXT = "free_text", "Free text"

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
    topic = models.CharField(max_length=24, choices=Topic.choices)
    difficulty = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(5)]
    )
    lesson = models.ForeignKey(Lesson, on_delete=models.PROTECT, related_name="questions")
    section = models.ForeignKey(
        Section,
        on_delete=models.PROTECT,
        related_name="questions",
        help_text="The section of its lesson it follows; a question is Pro when its section is.",
    )
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

    objects = LiveManager()

    class Meta:
        ordering = ["lesson__course", "lesson__number", "position", "pk"]
        indexes = [
            models.Index(fields=["lesson", "position"]),
            models.Index(fields=["topic", "kind"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(difficulty__gte=1, difficulty__lte=5),
                name="question_difficulty_1_to_5",
            )
        ]

    def __str__(self) -> str:
        return self.key

    @property
    def is_choice(self) -> bool:
        return self.kind in (self.Kind.SINGLE_CHOICE, self.Kind.MULTIPLE_CHOICE)

    @property
    def is_generated(self) -> bool:
        return bool(self.generator)

    @property
    def generator_or_none(self) -> str | None:
        return self.generator or None


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
