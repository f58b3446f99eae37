import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.fields import QuerySerializer
from engine.generators import MAX_SEED
from quizzes.models import Level, Question

SEED_PATTERN = r"^[0-9]{1,19}\Z"
"""A seed as JSON carries it: decimal digits in a string, since a 64-bit integer does not
survive a JavaScript number."""


@extend_schema_field({"type": "string", "pattern": "^[0-9]{1,19}$", "maxLength": 19})
class SeedField(serializers.CharField):
    """A variant's seed, sent as a string of decimal digits (0 to 2^63 - 1); taken as an int.
    Checked whole here: validators would run on the int."""

    default_error_messages = {
        "invalid": f"Give the seed as a whole number from 0 to {MAX_SEED}, in digits.",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> int:  # type: ignore[override]
        text = super().to_internal_value(data)
        if not re.match(SEED_PATTERN, text) or int(text) > MAX_SEED:
            self.fail("invalid")
        return int(text)


class QuestionSummarySerializer(serializers.ModelSerializer[Question]):
    lesson = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="The lesson it belongs to; null for a question of the interview bank.",
    )
    section = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="The section of the lesson this question follows; it is Pro when that is. "
        "Null for a question of the interview bank.",
    )
    category = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="The interview bank's category, for a question of the bank (one a review "
        "serves once it has been practised); null for a course question.",
    )
    level = serializers.ChoiceField(
        choices=Level.choices,
        source="level_or_none",
        read_only=True,
        allow_null=True,
        help_text="A bank question's interview level; null for a course question.",
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
            "category",
            "level",
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
    seed = serializers.RegexField(
        SEED_PATTERN,
        allow_null=True,
        help_text="The generated variant's seed, as a string of digits; null for the order "
        "of a choice question's choices.",
    )
    prompt_html = serializers.CharField()
    data = serializers.DictField(help_text="The variant's numbers, under the prompt's names.")


class CodeExampleSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    call = serializers.CharField(help_text="The call, as Python.")
    returns = serializers.CharField(help_text="What it returns, as Python (NumPy's repr).")


class CodingSerializer(serializers.Serializer[Any]):
    function = serializers.CharField(help_text="The function to write.")
    parameters = serializers.ListField(child=serializers.CharField())
    starter = serializers.CharField(help_text="The code to start from.")
    examples = CodeExampleSerializer(many=True, help_text="The visible examples.")


class QuestionDetailSerializer(QuestionSummarySerializer):
    choices = ChoiceOutSerializer(
        many=True, required=False, help_text="In the order to show them (drawn by the server)."
    )
    variant = VariantOutSerializer(
        required=False,
        help_text="A generated question's variant, or a choice question's order of choices.",
    )

    code = CodingSerializer(
        required=False,
        help_text="A coding question's function, starter code and visible examples (answer "
        "it at /api/v1/code/questions/{id}/submissions/).",
    )

    class Meta(QuestionSummarySerializer.Meta):
        fields = (*QuestionSummarySerializer.Meta.fields, "choices", "variant", "code")


class QuestionDetailQuerySerializer(QuerySerializer):
    seed = SeedField(
        required=False,
        help_text="Reproduces one variant, to practise or share a worked example; answers to "
        "it count as practice.",
    )
