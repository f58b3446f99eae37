from typing import Any

from rest_framework import serializers

from config.fields import StrictIntegerField
from course import selectors
from course.models import Access, Course, GlossaryTerm, Lesson, LessonProgress, Report

# A lesson's access as a learner reads it: its own enum in the schema, apart from a user's plan,
# though both are free or pro.
LESSON_ACCESS = [(Access.FREE, "Open to everyone"), (Access.PRO, "Needs a Pro plan")]


class CourseSummarySerializer(serializers.ModelSerializer[Course]):
    lesson_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Course
        fields = ("slug", "title", "summary", "lesson_count")


class CourseLessonSerializer(serializers.ModelSerializer[Lesson]):
    access = serializers.ChoiceField(choices=LESSON_ACCESS)
    locked = serializers.SerializerMethodField()
    completed = serializers.SerializerMethodField()

    class Meta:
        model = Lesson
        fields = ("slug", "number", "title", "summary", "minutes", "access", "locked", "completed")

    def get_locked(self, lesson: Lesson) -> bool:
        return not selectors.can_read(self.context["request"].user, lesson.access)

    def get_completed(self, lesson: Lesson) -> bool:
        return lesson.pk in self.context["completed"]


class CourseDetailSerializer(serializers.ModelSerializer[Course]):
    lessons = CourseLessonSerializer(many=True, read_only=True)

    class Meta:
        model = Course
        fields = ("slug", "title", "summary", "lessons")

    def to_representation(self, course: Course) -> dict[str, Any]:
        # Which lessons the caller completed: one query for the whole course, read by each
        # lesson's `completed`.
        self.context["completed"] = selectors.completed_lesson_ids(
            user=self.context["request"].user,
            lesson_ids=[lesson.pk for lesson in course.lessons.all()],
        )
        return super().to_representation(course)


class SectionSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    title = serializers.CharField()
    locked = serializers.BooleanField()
    body_html = serializers.CharField(
        required=False, help_text="Absent when the section is locked for the caller."
    )
    question_ids = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The questions that follow this section, to answer in place (none when the"
        " section is locked for the caller).",
    )


class TermRefSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    term = serializers.CharField()


class LessonRefSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    number = serializers.IntegerField()
    title = serializers.CharField()
    summary = serializers.CharField()


class LessonDetailSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    course = serializers.CharField()
    number = serializers.IntegerField()
    title = serializers.CharField()
    summary = serializers.CharField()
    minutes = serializers.IntegerField()
    access = serializers.ChoiceField(choices=LESSON_ACCESS)
    locked = serializers.BooleanField(help_text="True when some sections are closed to the caller.")
    completed = serializers.BooleanField()
    prerequisites = serializers.ListField(child=serializers.CharField())
    sections = SectionSerializer(many=True)
    glossary = TermRefSerializer(many=True)
    takeaways = serializers.ListField(child=serializers.CharField())
    sources = serializers.ListField(child=serializers.CharField())
    question_ids = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The lesson's questions the caller may open (Pro ones only with Pro).",
    )
    previous_lesson = LessonRefSerializer(allow_null=True)
    next_lesson = LessonRefSerializer(allow_null=True)

    @staticmethod
    def shape(page: selectors.LessonPage, user: Any) -> dict[str, Any]:
        lesson = page.lesson
        sections = []
        for section in page.sections:
            readable = selectors.can_read(user, section.access)
            item: dict[str, Any] = {"slug": section.slug, "title": section.title}
            item["locked"] = not readable
            if readable:
                item["body_html"] = section.body_html
            item["question_ids"] = page.section_question_ids.get(section.pk, [])
            sections.append(item)

        def ref(other: Lesson | None) -> dict[str, Any] | None:
            if other is None:
                return None
            return {
                "slug": other.slug,
                "number": other.number,
                "title": other.title,
                "summary": other.summary,
            }

        return {
            "slug": lesson.slug,
            "course": lesson.course.slug,
            "number": lesson.number,
            "title": lesson.title,
            "summary": lesson.summary,
            "minutes": lesson.minutes,
            "access": lesson.access,
            "locked": any(s["locked"] for s in sections),
            "completed": page.completed,
            "prerequisites": page.prerequisites,
            "sections": sections,
            "glossary": [{"slug": t.slug, "term": t.term} for t in page.glossary],
            "takeaways": lesson.takeaways,
            "sources": lesson.sources,
            "question_ids": page.question_ids,
            "previous_lesson": ref(page.previous),
            "next_lesson": ref(page.next),
        }


class LessonProgressSerializer(serializers.ModelSerializer[LessonProgress]):
    lesson = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    completed = serializers.SerializerMethodField()

    class Meta:
        model = LessonProgress
        fields = ("lesson", "started_at", "completed_at", "completed")
        read_only_fields = ("started_at",)

    def get_completed(self, progress: LessonProgress) -> bool:
        return progress.completed_at is not None


class GlossaryTermSerializer(serializers.ModelSerializer[GlossaryTerm]):
    lesson = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    aliases = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = GlossaryTerm
        fields = ("slug", "term", "aliases", "definition_html", "lesson", "course")


class ReportSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(read_only=True)
    lesson = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Lesson.objects.live(),
        required=False,
        allow_null=True,
        error_messages={"does_not_exist": "There is no lesson '{value}'."},
    )
    question = StrictIntegerField(
        source="question_id", required=False, allow_null=True, min_value=1
    )
    message = serializers.CharField(max_length=2000)
    status = serializers.CharField(read_only=True)
    created_at = serializers.DateTimeField(read_only=True)

    def validate_question(self, value: int | None) -> int | None:
        if value is not None and not selectors.question_exists(question_id=value):
            raise serializers.ValidationError(f"There is no question {value}.", code="not_found")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("lesson") is None and attrs.get("question_id") is None:
            raise serializers.ValidationError(
                {"lesson": ["Name the lesson or the question the report is about."]},
                code="required",
            )
        return attrs

    def to_representation(self, report: Report) -> dict[str, Any]:  # type: ignore[override]
        return {
            "id": report.pk,
            "lesson": report.lesson.slug if report.lesson else None,
            "question": report.question_id,
            "message": report.message,
            "status": report.status,
            "created_at": serializers.DateTimeField().to_representation(report.created_at),
        }
