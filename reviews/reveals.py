"""Reveals: a learner asks to see a question's answer before answering it.

Free text is answered in two steps: the learner reads the model answer (a reveal), then rates
their own answer against it, naming the reveal. On a machine-graded question, "Show the answer"
is the learner saying they do not know it: their next review of the question counts as Again.
Either way the reveal waits on the learner's card, so the review that follows finds it with the
card's row lock, at no extra cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from accounts.models import User
from quizzes.errors import AnswerRefused
from quizzes.grading import answer_key, choice_verdicts, served_for
from quizzes.models import Question
from reviews import cards
from reviews.feedback import moment
from reviews.models import Card, Reveal


@dataclass(frozen=True)
class Revealed:
    reveal: Reveal
    shown: dict[str, Any]


def reveal_create(
    *, user: User, question: Question, variant: str | None, now: datetime
) -> Revealed:
    """Records the reveal, makes it the one the learner's card waits for, and returns what the
    learner is shown: the right answer and how to get it, or the model answer. A generated
    question needs the variant token it was served with (its answer is the variant's)."""
    if question.kind == Question.Kind.CODE:
        raise AnswerRefused(
            422,
            None,
            "submit_code",
            "A coding question's model solution is shown after a submission of code.",
        )
    served = served_for(question, token=variant, user_id=user.pk)
    choices = list(question.choices.order_by("position")) if question.is_choice else []
    seed = served.seed if served else None
    key = answer_key(question, seed=seed, choices=choices)
    with transaction.atomic():
        reveal = Reveal.objects.create(
            user=user, question=question, variant_seed=seed, created_at=now
        )
        # The learner's card may not be made yet: made here as new, in its place in the course.
        made = cards.new_card(user=user, question=question)
        made.due = now
        made.lesson_number, made.position = cards.course_place(question.pk)
        Card.objects.bulk_create([made], ignore_conflicts=True)
        Card.objects.filter(user=user, question=question).update(pending_reveal=reveal)
    shown: dict[str, Any] = {
        "id": reveal.pk,
        "question": question.pk,
        "variant_seed": None if reveal.variant_seed is None else str(reveal.variant_seed),
        "revealed_at": moment(reveal.created_at),
        "correct_answer": key.correct_answer,
        "solution_steps": key.solution_steps,
        "explanation_html": question.explanation_html,
    }
    if question.model_answer_html:
        shown["model_answer_html"] = question.model_answer_html
    if question.in_bank:
        shown["key_points"] = list(question.entry.key_points)
    if question.is_choice:
        shown["choices"] = choice_verdicts(choices, served.order if served else None)
    return Revealed(reveal, shown)
