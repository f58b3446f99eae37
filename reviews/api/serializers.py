from typing import Any

from rest_framework import serializers

from config.fields import StrictIntegerField
from reviews.models import Answer, Card


class AnswerInSerializer(serializers.Serializer[Any]):
    response = serializers.CharField(
        max_length=2000, required=False, allow_blank=True, trim_whitespace=False
    )
    choice_ids = serializers.ListField(
        child=StrictIntegerField(min_value=1), max_length=8, required=False
    )
    variant = serializers.CharField(max_length=500, required=False)
    self_rating = serializers.ChoiceField(choices=Answer.Rating.choices, required=False)
    mode = serializers.ChoiceField(choices=Answer.Mode.choices, default=Answer.Mode.REVIEW)
    duration_ms = StrictIntegerField(min_value=0, max_value=86_400_000, required=False)
    client_id = serializers.UUIDField(required=False)


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


class AnswerOutSerializer(serializers.Serializer[Any]):
    answer_id = serializers.IntegerField()
    question = serializers.IntegerField()
    question_version = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Answer.Mode.choices)
    status = serializers.ChoiceField(choices=Answer.Status.choices)
    score = serializers.FloatField()
    feedback_html = serializers.CharField()
    misconception = MisconceptionSerializer(allow_null=True)
    correct_answer = serializers.CharField(allow_blank=True)
    solution_steps = serializers.ListField(child=serializers.CharField())
    value_read = serializers.FloatField(allow_null=True)
    model_answer_html = serializers.CharField(required=False)
    choices = ChoiceVerdictSerializer(many=True, required=False)
    review = ReviewSummarySerializer(
        allow_null=True, help_text="The card's new schedule (null in practice mode)."
    )
