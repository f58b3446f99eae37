from typing import Any

from rest_framework import serializers

from config.fields import QuerySerializer
from quizzes.models import Question


class QuestionSummarySerializer(serializers.ModelSerializer[Question]):
    lesson = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    section = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        help_text="The section of the lesson this question follows; it is Pro when that is.",
    )
    generator = serializers.CharField(allow_null=True, source="generator_or_none")

    class Meta:
        model = Question
        fields = (
            "id",
            "key",
            "kind",
            "topic",
            "difficulty",
            "lesson",
            "section",
            "interview",
            "generator",
            "version",
            "prompt_html",
        )


class ChoiceOutSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    text_html = serializers.CharField()


class VariantOutSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(help_text="Send back with the answer.")
    seed = serializers.IntegerField()
    prompt_html = serializers.CharField()
    data = serializers.DictField(help_text="The variant's numbers, under the prompt's names.")


class QuestionDetailSerializer(QuestionSummarySerializer):
    choices = ChoiceOutSerializer(many=True, required=False)
    variant = VariantOutSerializer(required=False)

    class Meta(QuestionSummarySerializer.Meta):
        fields = (*QuestionSummarySerializer.Meta.fields, "choices", "variant")


class QuestionDetailQuerySerializer(QuerySerializer):
    seed = serializers.IntegerField(min_value=0, max_value=2**63 - 1, required=False)
