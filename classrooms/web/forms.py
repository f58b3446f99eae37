"""The teachers' forms: a classroom, an assignment with its due time in the teacher's zone, and
a join code typed in."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django import forms

from course.models import Course, Lesson


def _plain(value: str) -> str:
    if "\x00" in value:
        raise forms.ValidationError("Use letters, digits and punctuation only.")
    return value.strip()


class ClassroomForm(forms.Form):
    name = forms.CharField(
        label="Name of the class",
        max_length=120,
        error_messages={"required": "Give the class a name."},
    )

    def clean_name(self) -> str:
        name = _plain(str(self.cleaned_data["name"]))
        if not name:
            raise forms.ValidationError("Give the class a name.")
        return name


class NewClassroomForm(ClassroomForm):
    course = forms.ModelChoiceField(
        label="Course",
        queryset=Course.objects.none(),
        empty_label=None,
        error_messages={"invalid_choice": "Choose one of the courses listed."},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["course"].queryset = Course.objects.order_by("title")  # type: ignore[attr-defined]


class AssignmentForm(forms.Form):
    title = forms.CharField(
        label="Title", max_length=200, error_messages={"required": "Give the assignment a title."}
    )
    lesson = forms.ModelChoiceField(
        label="Lesson to complete",
        queryset=Lesson.objects.none(),
        required=False,
        empty_label="No lesson",
        error_messages={"invalid_choice": "Choose one of the course's lessons."},
    )
    questions = forms.MultipleChoiceField(
        label="Questions to answer correctly",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "Choose among the course's questions."},
    )
    due_at = forms.DateTimeField(
        label="Due",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        error_messages={
            "required": "Say when it is due.",
            "invalid": "Give the date and time as YYYY-MM-DD HH:MM.",
        },
    )

    def __init__(
        self,
        *args: Any,
        lessons: list[Lesson],
        questions: list[tuple[int, str]],
        zone: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.zone = ZoneInfo(zone)
        self.fields["lesson"].queryset = Lesson.objects.filter(  # type: ignore[attr-defined]
            pk__in=[lesson.pk for lesson in lessons]
        ).order_by("number")
        self.fields["questions"].choices = [(str(pk), label) for pk, label in questions]  # type: ignore[attr-defined]
        self.fields["due_at"].help_text = f"In your time zone, {zone}."

    def clean_title(self) -> str:
        title = _plain(str(self.cleaned_data["title"]))
        if not title:
            raise forms.ValidationError("Give the assignment a title.")
        return title

    def clean_due_at(self) -> datetime:
        due: datetime = self.cleaned_data["due_at"]
        local = due.replace(tzinfo=None)
        if not 2000 <= local.year <= 2200:
            raise forms.ValidationError("Give a due time between the years 2000 and 2200.")
        return local.replace(tzinfo=self.zone)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors and data.get("lesson") is None and not data.get("questions"):
            self.add_error("lesson", "Choose a lesson, some questions, or both.")
        return data

    @property
    def question_ids(self) -> list[int]:
        return [int(q) for q in self.cleaned_data.get("questions") or []]


class JoinCodeForm(forms.Form):
    code = forms.CharField(label="Join code", max_length=40)
