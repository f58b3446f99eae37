from typing import Any

from rest_framework import serializers

from config.fields import StrictIntegerField
from quizzes.api.serializers import SEED_PATTERN
from reviews.models import Answer, Card


class AnswerInSerializer(serializers.Serializer[Any]):
    response = serializers.CharField(
        max_length=2000, required=False, allow_blank=True, trim_whitespace=False
    )
    choice_ids = serializers.ListField(
        child=StrictIntegerField(min_value=1), max_length=8, required=False
    )
    variant = serializers.CharField(
        max_length=500,
        required=False,
        help_text="The variant token the question came with: required for a generated "
        "question, and for a choice question it keeps the order its choices were shown in.",
    )
    # The messages name the choices rather than repeat what was sent: a sync's results are
    # stored for its repeats, and text a client sent may hold what no database keeps (NUL).
    self_rating = serializers.ChoiceField(
        choices=Answer.Rating.choices,
        required=False,
        error_messages={"invalid_choice": "Rate it again, hard, good or easy."},
    )
    mode = serializers.ChoiceField(
        choices=Answer.Mode.choices,
        default=Answer.Mode.REVIEW,
        error_messages={"invalid_choice": "The mode is review or practice."},
    )
    duration_ms = StrictIntegerField(min_value=0, max_value=86_400_000, required=False)
    client_id = serializers.UUIDField(required=False)
    reveal = StrictIntegerField(
        min_value=1,
        max_value=2**63 - 1,
        required=False,
        help_text="Free text: the id of the reveal of the model answer the learner rated "
        "their answer against (required); ignored for other kinds.",
    )


class MisconceptionSerializer(serializers.Serializer[Any]):
    code = serializers.CharField()
    message = serializers.CharField()


class ChoiceVerdictSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    correct = serializers.BooleanField()
    explanation_html = serializers.CharField()


class ReviewSummarySerializer(serializers.Serializer[Any]):
    card_id = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Card.State.choices)
    due = serializers.DateTimeField()
    interval_days = serializers.FloatField()
    rating = serializers.ChoiceField(choices=Answer.Rating.choices)
    leech = serializers.BooleanField()


class NoticeSerializer(serializers.Serializer[Any]):
    code = serializers.ChoiceField(choices=Answer.Notice.choices)
    message = serializers.CharField()


class VerdictSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=Answer.Status.choices)
    score = serializers.FloatField()
    misconception = MisconceptionSerializer(allow_null=True)
    correct_answer = serializers.CharField(allow_blank=True)
    solution_steps = serializers.ListField(child=serializers.CharField())


class KeyPointsSerializer(serializers.Serializer[Any]):
    total = serializers.IntegerField(help_text="How many key points the question has.")
    covered = serializers.ListField(
        child=serializers.IntegerField(), help_text="The ones ticked, by place (from 0)."
    )
    missed = serializers.ListField(
        child=serializers.IntegerField(), help_text="The ones not ticked, by place."
    )
    suggested_rating = serializers.ChoiceField(
        choices=Answer.Rating.choices,
        help_text="All covered: good; more than half: hard; fewer: again.",
    )
    rating = serializers.ChoiceField(
        choices=Answer.Rating.choices,
        help_text="The rating given: the suggested one, or a step from it.",
    )


class AnswerOutSerializer(VerdictSerializer):
    answer_id = serializers.IntegerField()
    question = serializers.IntegerField()
    question_version = serializers.IntegerField()
    mode = serializers.ChoiceField(
        choices=Answer.Mode.choices,
        help_text="How the answer counted: a review sent as one may count as practice "
        "(`notice` says why).",
    )
    feedback_html = serializers.CharField()
    value_read = serializers.FloatField(allow_null=True)
    variant_seed = serializers.RegexField(
        SEED_PATTERN, allow_null=True, help_text="The generated variant's seed, as digits."
    )
    notice = NoticeSerializer(
        allow_null=True, help_text="Why the answer counted otherwise than it was sent or graded."
    )
    answered_at = serializers.DateTimeField(
        help_text="When it was answered (an offline review: when the device says)."
    )
    received_at = serializers.DateTimeField(help_text="When the server received it.")
    model_answer_html = serializers.CharField(required=False)
    choices = ChoiceVerdictSerializer(
        many=True, required=False, help_text="In the order the choices were shown."
    )
    review = ReviewSummarySerializer(
        allow_null=True, help_text="The card's new schedule (null in practice mode)."
    )
    key_points = KeyPointsSerializer(
        required=False,
        help_text="An interview question practised by its key points: which were covered, and "
        "the rating they suggested.",
    )


class RevealInSerializer(serializers.Serializer[Any]):
    variant = serializers.CharField(
        max_length=500,
        required=False,
        help_text="The variant token the question came with: required for a generated "
        "question; for a choice question, the order to show the verdicts in.",
    )


class RevealOutSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(help_text="Name it as `reveal` when rating a free-text answer.")
    question = serializers.IntegerField()
    variant_seed = serializers.RegexField(SEED_PATTERN, allow_null=True)
    revealed_at = serializers.DateTimeField()
    correct_answer = serializers.CharField(allow_blank=True)
    solution_steps = serializers.ListField(child=serializers.CharField())
    explanation_html = serializers.CharField(allow_blank=True)
    model_answer_html = serializers.CharField(required=False)
    choices = ChoiceVerdictSerializer(many=True, required=False)
    key_points = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="An interview question's key points, to tick the ones the answer covered "
        "(POST /api/v1/interview/questions/{key}/practice/ with this reveal).",
    )


class PracticeInSerializer(serializers.Serializer[Any]):
    response = serializers.CharField(
        max_length=2000,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="What the learner answered, typed; blank when they said it out loud.",
    )
    covered_key_points = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=19),
        max_length=20,
        help_text="The key points the answer covered, by their place in the question's "
        "`key_points` (from 0); [] for none.",
    )
    rating = serializers.ChoiceField(
        choices=Answer.Rating.choices,
        required=False,
        error_messages={"invalid_choice": "Rate it again, hard, good or easy."},
        help_text="The learner's own rating, one step from the suggested one at most; the "
        "suggested one when left out.",
    )
    reveal = StrictIntegerField(
        min_value=1,
        max_value=2**63 - 1,
        required=False,
        help_text="The reveal of the model answer the learner looked at (POST .../reveal/); "
        "one is recorded now when left out.",
    )
    duration_ms = StrictIntegerField(min_value=0, max_value=86_400_000, required=False)
    client_id = serializers.UUIDField(required=False)
