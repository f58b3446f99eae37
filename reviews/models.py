"""What a learner did and will do: their answers (the review log), the answers they looked at
first (reveals), the idempotency records that make a retried answer count once, and their cards
and deck, scheduled by FSRS."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from quizzes.models import Level, Question


class CardQuerySet(models.QuerySet["Card"]):
    def bulk_create(self, objs: Iterable[Card], *args: Any, **kwargs: Any) -> list[Card]:
        """As Django's, with each card's lesson taken from its question where not given."""
        cards = list(objs)
        missing = {card.question_id for card in cards if card.lesson_id is None}
        if missing:
            lessons = dict(Question.objects.filter(pk__in=missing).values_list("pk", "lesson_id"))
            for card in cards:
                if card.lesson_id is None:
                    card.lesson_id = lessons[card.question_id]
        return super().bulk_create(cards, *args, **kwargs)

    def seen(self) -> CardQuerySet:
        """Cards the learner has reviewed at least once, forgotten ones included; leaves out
        the new cards made ahead for questions never answered."""
        return self.filter(~models.Q(state=Card.State.NEW) | models.Q(reset_at__isnull=False))


class Reveal(models.Model):
    """A learner asked to see a question's answer before answering it ("Show the answer", or
    the model answer of a free-text question, which they rate their own answer against).

    Not an answer: it changes no schedule by itself. The learner's next review of the question
    follows it: a free-text answer names it, and a machine-graded one counts as Again.
    """

    # No index of its own: the (user, question) index leads with the user.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reveals", db_index=False
    )
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="reveals", db_index=False
    )
    variant_seed = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="The generated variant whose answer was shown."
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["user", "question"], name="reveal_user_question")]

    def __str__(self) -> str:
        return f"{self.user_id} revealed {self.question_id}"


class Card(models.Model):
    """One learner's memory of one question, scheduled by FSRS.

    The state fields are the engine's `CardState`; the rest is what the service adds around the
    scheduler (suspension, burying, leeches). `seed` makes each card's interval fuzz repeatable.
    Every live question has a card in each learner's deck, made ahead in state new (see
    `reviews.deck`), so the queue reads new cards from an index as it reads due ones.
    """

    class State(models.TextChoices):
        NEW = "new", "New"
        LEARNING = "learning", "Learning"
        REVIEW = "review", "Review"
        RELEARNING = "relearning", "Relearning"

    # No index of its own: the (user, question) constraint's index leads with the user.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="cards", db_index=False
    )
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="cards")
    # The question's lesson, copied here so the queue reads each lesson's cards from an index
    # (and skips a lesson whose siblings wait without reading its cards); kept in step by
    # `reviews.deck` when content moves a question. None for a question of the interview
    # bank, which is in no lesson: its card is made when the learner first practises it.
    lesson = models.ForeignKey(
        "course.Lesson",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        null=True,
        blank=True,
    )
    state = models.CharField(max_length=12, choices=State.choices, default=State.NEW)
    step = models.PositiveSmallIntegerField(null=True, blank=True)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due = models.DateTimeField()
    last_review = models.DateTimeField(null=True, blank=True)
    reps = models.PositiveIntegerField(default=0)
    lapses = models.PositiveIntegerField(default=0)
    suspended = models.BooleanField(default=False)
    buried_until = models.DateTimeField(null=True, blank=True)
    leech = models.BooleanField(default=False)
    seed = models.PositiveBigIntegerField(help_text="Seeds this card's interval fuzz.")
    # The question's place in the course (its lesson's number, its position in the lesson),
    # copied here so new cards are read in course order from an index.
    lesson_number = models.PositiveSmallIntegerField(default=0)
    position = models.PositiveSmallIntegerField(default=0)
    reset_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the card was last forgotten: its review log starts over from here.",
    )
    # Read with the card's row lock, so the review that follows a reveal costs no query to find.
    pending_reveal = models.ForeignKey(
        Reveal,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        db_index=False,  # indexed below, where set
        related_name="+",
        help_text="The learner looked at the answer since their last review of this card.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CardQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "question"], name="card_once_per_question")
        ]
        indexes = [
            # Due cards, soonest first; new cards are kept out so they never pad the scan.
            models.Index(
                fields=["user", "due", "id"],
                condition=models.Q(suspended=False) & ~models.Q(state="new"),
                name="card_due",
            ),
            # The card list: the cards a learner has seen (`seen()`), soonest due first, read
            # a page at a time from any point without sorting the rest.
            models.Index(
                fields=["user", "due", "id"],
                condition=~models.Q(state="new") | models.Q(reset_at__isnull=False),
                name="card_seen",
            ),
            # The same, a lesson at a time: the queue reads these when a lesson's cards wait.
            models.Index(
                fields=["user", "lesson", "due", "id"],
                condition=models.Q(suspended=False) & ~models.Q(state="new"),
                name="card_due_by_lesson",
            ),
            # The reviewed cards in the order of their seed, a draw at random: the stats'
            # chance of recall reads its sample from the front, with what the curve needs.
            models.Index(
                fields=["user", "seed"],
                condition=models.Q(last_review__isnull=False),
                include=["stability", "last_review"],
                name="card_recall_sample",
            ),
            # New cards in course order.
            models.Index(
                fields=["user", "lesson_number", "position", "question"],
                condition=models.Q(suspended=False, state="new"),
                name="card_new",
            ),
            # The same, a lesson at a time.
            models.Index(
                fields=["user", "lesson", "position", "question"],
                condition=models.Q(suspended=False, state="new"),
                name="card_new_by_lesson",
            ),
            models.Index(
                fields=["pending_reveal"],
                condition=models.Q(pending_reveal__isnull=False),
                name="card_pending_reveal",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.question_id}: {self.state}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.lesson_id is None and self.question.lesson_id is not None:
            self.lesson_id = self.question.lesson_id
        super().save(*args, **kwargs)


class Answer(models.Model):
    """One graded answer, kept with everything needed to explain and re-grade it later.

    A review-mode answer is also the card's review log entry: its rating and the card's state
    before and after, so a review can be undone or replayed exactly.
    """

    class Mode(models.TextChoices):
        REVIEW = "review", "Review"
        PRACTICE = "practice", "Practice"

    class Status(models.TextChoices):
        CORRECT = "correct", "Correct"
        INCORRECT = "incorrect", "Incorrect"
        PARTIAL = "partial", "Partial"
        SELF_GRADED = "self_graded", "Self-graded"

    class Rating(models.TextChoices):
        AGAIN = "again", "Again"
        HARD = "hard", "Hard"
        GOOD = "good", "Good"
        EASY = "easy", "Easy"

    class Notice(models.TextChoices):
        """Why an answer counted otherwise than it was sent or graded."""

        SEED_CHOSEN = "seed_chosen", "The learner picked the variant's seed: practice"
        VARIANT_ANSWERED = "variant_answered", "The variant was answered before: practice"
        ANSWER_REVEALED = "answer_revealed", "The answer was looked at first: Again"

    # Neither has an index of its own: the composite indexes below lead with each, so every
    # answer written updates two indexes fewer.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="answers", db_index=False
    )
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="answers", db_index=False
    )
    question_version = models.PositiveIntegerField()
    mode = models.CharField(max_length=8, choices=Mode.choices, default=Mode.REVIEW)
    variant_seed = models.PositiveBigIntegerField(null=True, blank=True)
    variant_nonce = models.CharField(
        max_length=16, blank=True, help_text="The identity of the variant token answered."
    )
    notice = models.CharField(max_length=16, choices=Notice.choices, blank=True)
    reveal = models.ForeignKey(
        Reveal,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        db_index=False,  # indexed below, where set
        related_name="answers",
        help_text="The reveal this answer followed.",
    )
    response = models.TextField(blank=True, help_text="The text as the learner typed it.")
    value_read = models.CharField(
        max_length=120, blank=True, help_text="The number read from the text, exactly (p/q)."
    )
    choice_ids = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices)
    score = models.FloatField()
    misconception = models.CharField(max_length=40, blank=True)
    self_rating = models.CharField(max_length=8, choices=Rating.choices, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    client_id = models.UUIDField(null=True, blank=True)
    covered_key_points = models.JSONField(
        null=True,
        blank=True,
        help_text="An interview question's key points the learner said they covered (their "
        "places in its list, from 0); null where they were not asked.",
    )
    card = models.ForeignKey(
        Card, on_delete=models.SET_NULL, null=True, blank=True, related_name="reviews"
    )
    rating = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="FSRS rating 1-4 (again, hard, good, easy)."
    )
    card_before = models.JSONField(null=True, blank=True)
    card_after = models.JSONField(null=True, blank=True)
    # When the answer was given: now, or the time an offline review was made.
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    # When the server got it: what deadlines are judged by, since a device says `created_at`.
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "question", "created_at"]),
            models.Index(fields=["question", "created_at"]),
            # A learner's reviews of today.
            models.Index(fields=["user", "mode", "created_at"], name="answer_user_day"),
            # The review the server received last (undo).
            models.Index(
                fields=["user", "received_at"],
                condition=models.Q(mode="review"),
                name="answer_user_received",
            ),
            models.Index(
                fields=["reveal"], condition=models.Q(reveal__isnull=False), name="answer_reveal"
            ),
            # Whether a variant token was answered before, in any mode.
            models.Index(
                fields=["user", "variant_nonce"],
                condition=~models.Q(variant_nonce=""),
                name="answer_user_variant",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(score__gte=0, score__lte=1), name="answer_score_0_to_1"
            ),
            # A review made on a device is stored once, however often the device sends it.
            models.UniqueConstraint(
                fields=["user", "client_id"],
                condition=models.Q(client_id__isnull=False),
                name="answer_client_id_once",
            ),
            # A served variant counts for review once, however often it is sent back.
            models.UniqueConstraint(
                fields=["user", "variant_nonce"],
                condition=models.Q(mode="review") & ~models.Q(variant_nonce=""),
                name="answer_variant_reviewed_once",
            ),
            # A reveal is followed by one review.
            models.UniqueConstraint(
                fields=["reveal"],
                condition=models.Q(mode="review", reveal__isnull=False),
                name="answer_reveal_reviewed_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.question_id}: {self.status}"


class Deck(models.Model):
    """How far the learner's new cards have been made: from which bank revision, and up to
    which question id. Either one behind means some cards are missing or out of order."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="deck"
    )
    revision = models.PositiveBigIntegerField()
    questions_through = models.PositiveBigIntegerField()
    built_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user_id}: revision {self.revision}, through {self.questions_through}"


class IdempotencyRecord(models.Model):
    """The first response to a request that records learning, replayed for its repeats.

    Written in the same transaction as the answer it stands for, so a repeat either finds the
    record and the answer, or neither.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_records"
    )
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the method, path, body.")
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_once_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"


class StudyDay(models.Model):
    """A learner's work on one course in one of their study days, summed from the review log;
    with no course, their work on the interview bank.

    Derived: written in the transaction that writes the answers it sums (`reviews.rollups`)
    and rebuilt from the log by `manage.py rollups_rebuild`. The day is the learner's own
    (time zone and day-start hour); a change to either rebuilds the learner's days.
    """

    # No index of its own: the unique constraint's index leads with the user.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    course = models.ForeignKey(
        "course.Course",
        on_delete=models.CASCADE,
        related_name="+",
        null=True,
        blank=True,
        help_text="None: the interview bank, which is in no course.",
    )
    day = models.DateField()
    answers = models.PositiveIntegerField(default=0, help_text="Answers in any mode.")
    reviews = models.PositiveIntegerField(default=0, help_text="Review-mode answers.")
    correct = models.PositiveIntegerField(default=0, help_text="Reviews with full marks.")
    score = models.FloatField(default=0.0, help_text="The reviews' scores, summed.")
    # Reviews of cards in the review state, and those not rated Again: true retention.
    mature = models.PositiveIntegerField(default=0)
    passed = models.PositiveIntegerField(default=0)
    time_ms = models.PositiveBigIntegerField(default=0, help_text="Time spent on timed answers.")
    last_at = models.DateTimeField(help_text="When the day's latest answer was given.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "course", "day"], name="study_day_once"),
            # Nulls are distinct to the constraint above: the bank's days have their own.
            models.UniqueConstraint(
                fields=["user", "day"],
                condition=models.Q(course__isnull=True),
                name="study_day_bank_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on course {self.course_id}, {self.day}: {self.reviews} reviews"


class StudyTotal(models.Model):
    """A learner's work on one course in all (with no course, on the interview bank), and
    their current run of study days with a review (the streak): the sums of their `StudyDay`
    rows, kept with them."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    course = models.ForeignKey(
        "course.Course",
        on_delete=models.CASCADE,
        related_name="+",
        null=True,
        blank=True,
        help_text="None: the interview bank, which is in no course.",
    )
    answers = models.PositiveIntegerField(default=0)
    reviews = models.PositiveIntegerField(default=0)
    correct = models.PositiveIntegerField(default=0)
    score = models.FloatField(default=0.0)
    time_ms = models.PositiveBigIntegerField(default=0)
    last_at = models.DateTimeField()
    # The latest study day with a review, and the first of the unbroken run that ends there.
    run_start = models.DateField(null=True, blank=True)
    run_end = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "course"], name="study_total_once"),
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(course__isnull=True),
                name="study_total_bank_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on course {self.course_id}: {self.reviews} reviews"


class DueSlot(models.Model):
    """How many of a learner's scheduled cards (neither new nor suspended: the cards of the
    queue's due scan) fall due in one quarter of an hour, UTC. The stats' forecast sums them
    by the learner's days, which begin on a quarter hour in every time zone.

    Derived, and kept by the database itself: triggers on the card table (migration 0007)
    count every insert, change and delete of a card, however it is written (an answer, a sync
    batch, an undo, a suspension, a reset, a bulk update, a deleted account).
    `manage.py rollups_rebuild` counts them again from the cards, which stay the truth. A slot
    that empties keeps its row at 0 until the nightly prune.
    """

    SLOT = timedelta(minutes=15)

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    slot = models.DateTimeField(help_text="The quarter hour's start, UTC.")
    cards = models.IntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "slot"], name="due_slot_once")]

    def __str__(self) -> str:
        return f"{self.user_id} at {self.slot}: {self.cards} due"


class MockInterview(models.Model):
    """A mock interview: questions of the interview bank put one at a time against a clock,
    then a summary by category. Each answer is a review, so every question it asks joins the
    learner's schedule."""

    class Length(models.IntegerChoices):
        SHORT = 3, "3 questions, about 10 minutes"
        MEDIUM = 5, "5 questions, about 15 minutes"
        LONG = 10, "10 questions, about 30 minutes"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="mock_interviews",
        db_index=False,  # the (user, created_at) index leads with it
    )
    level = models.CharField(
        max_length=8, choices=Level.choices, blank=True, help_text="Blank: every level."
    )
    categories = models.JSONField(
        default=list, blank=True, help_text="The categories' slugs; empty: every category."
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"], name="mock_user_newest")]

    def __str__(self) -> str:
        return f"{self.user_id}'s mock interview of {self.created_at:%Y-%m-%d %H:%M}"


class MockQuestion(models.Model):
    """One question of a mock interview, in its place: when it was first shown (its clock
    starts then) and the answer it got."""

    mock = models.ForeignKey(MockInterview, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveSmallIntegerField()
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    shown_at = models.DateTimeField(null=True, blank=True)
    answer = models.OneToOneField(
        Answer, on_delete=models.SET_NULL, null=True, blank=True, related_name="mock_question"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["mock", "position"], name="mock_question_place"),
            models.UniqueConstraint(fields=["mock", "question"], name="mock_question_once"),
        ]
        ordering = ["mock", "position"]

    def __str__(self) -> str:
        return f"{self.mock_id} #{self.position}: {self.question_id}"


class CodeSubmission(models.Model):
    """A learner's code for a coding question, run in the sandbox by a worker of its own queue:
    stored before it runs, its tests' results written as they come, and its end once. A
    submission (not a run of the examples) is then a review, in the same transaction as its end,
    so it steps the card once however often its task is delivered."""

    class Run(models.TextChoices):
        EXAMPLES = "examples", "Run the examples"
        SUBMIT = "submit", "Submit"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        ERROR = "error", "Error"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="code_submissions",
        db_index=False,  # the (user, created_at) index leads with it
    )
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    run = models.CharField(max_length=8, choices=Run.choices)
    source = models.TextField()
    seed = models.PositiveBigIntegerField(help_text="Draws the hidden cases.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    tests = models.JSONField(default=list, blank=True, help_text="Each test's result so far.")
    score = models.FloatField(null=True, blank=True)
    message = models.TextField(blank=True, help_text="Why it ended in error, if it did.")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Runs started.")
    answer = models.OneToOneField(
        Answer, on_delete=models.SET_NULL, null=True, blank=True, related_name="code_submission"
    )
    client_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "created_at"], name="code_submission_user"),
            # The sweep that runs again what a lost message left waiting.
            models.Index(
                fields=["created_at"],
                condition=models.Q(status__in=["queued", "running"]),
                name="code_submission_unfinished",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "client_id"],
                condition=models.Q(client_id__isnull=False),
                name="code_submission_client_id_once",
            ),
            models.CheckConstraint(
                condition=models.Q(score__isnull=True) | models.Q(score__gte=0, score__lte=1),
                name="code_submission_score_0_to_1",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.question_id}: {self.run}, {self.status}"
