"""The shape of the course files under content/, checked before anything is written.

DRF serializers do the field checks (types, lengths, choices) so their messages match the API's;
`StrictSerializer` also refuses keys it does not know, so a typo never passes silently.
"""

from typing import Any

from rest_framework import serializers

from course.models import Access

SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z"
SLUG_MESSAGE = "Use lower-case letters, digits and single hyphens, e.g. 'block-anatomy'."


def slug_field(**kwargs: Any) -> serializers.RegexField:
    return serializers.RegexField(
        SLUG, max_length=80, error_messages={"invalid": SLUG_MESSAGE}, **kwargs
    )


class StrictSerializer(serializers.Serializer[Any]):
    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {
                        key: [f"Unknown field. Known fields: {', '.join(self.fields)}."]
                        for key in unknown
                    }
                )
        return super().to_internal_value(data)


class SectionSchema(StrictSerializer):
    slug = slug_field()
    title = serializers.CharField(max_length=200)
    access = serializers.ChoiceField(choices=Access.values, required=False)
    body = serializers.CharField(max_length=50_000, trim_whitespace=False)


class LessonSchema(StrictSerializer):
    slug = slug_field()
    title = serializers.CharField(max_length=200)
    summary = serializers.CharField(max_length=500)
    minutes = serializers.IntegerField(min_value=1, max_value=240)
    access = serializers.ChoiceField(choices=Access.values)
    prerequisites = serializers.ListField(child=slug_field(), default=list)
    sections = serializers.ListField(child=SectionSchema(), min_length=1)
    takeaways = serializers.ListField(child=serializers.CharField(max_length=500), default=list)
    sources = serializers.ListField(child=serializers.CharField(max_length=500), default=list)


class CourseSchema(StrictSerializer):
    slug = slug_field()
    title = serializers.CharField(max_length=200)
    summary = serializers.CharField(max_length=500)
    lessons = serializers.ListField(child=slug_field(), min_length=1)


class TermSchema(StrictSerializer):
    slug = slug_field()
    term = serializers.CharField(max_length=120)
    aliases = serializers.ListField(child=serializers.CharField(max_length=120), default=list)
    lesson = slug_field(required=False)
    definition = serializers.CharField(max_length=5_000)


GlossarySchema = serializers.ListField(child=TermSchema())
