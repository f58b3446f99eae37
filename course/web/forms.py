"""The course pages' one form: reporting a mistake in a lesson."""

from __future__ import annotations

from typing import Any

from django import forms

# The report keeps where it was made in front of the learner's words, within the model's 2,000.
MESSAGE_MAX = 1700


class ReportForm(forms.Form):
    message = forms.CharField(
        label="What is wrong?",
        help_text="Say what you noticed and, if you can, what you think it should say.",
        max_length=MESSAGE_MAX,
        widget=forms.Textarea(attrs={"rows": 6}),
        error_messages={"required": "Write what you noticed before sending."},
    )
    section = forms.CharField(required=False, max_length=80, widget=forms.HiddenInput)
    question = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def __init__(
        self, *args: Any, sections: dict[str, str], question_ids: list[int], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.sections = sections
        self.question_ids = question_ids

    def clean_message(self) -> str:
        message = str(self.cleaned_data["message"]).strip()
        if not message:
            raise forms.ValidationError("Write what you noticed before sending.")
        return message

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        section = data.get("section")
        if section and section not in self.sections:
            raise forms.ValidationError("That section is not part of this lesson.")
        question = data.get("question")
        if question is not None and question not in self.question_ids:
            raise forms.ValidationError("That question is not part of this lesson.")
        return data

    def report_text(self) -> str:
        """The learner's message, after a line saying which section it is about."""
        section = self.cleaned_data.get("section")
        message = str(self.cleaned_data["message"])
        if not section:
            return message
        return f"Section: {self.sections[section]} ({section})\n\n{message}"


class RedeemForm(forms.Form):
    code = forms.CharField(
        label="Licence code",
        help_text="As printed, for example ABCD-EFGH-JKMN-PQRS; dashes and case do not matter.",
        max_length=64,
        error_messages={"required": "Type the code you were given."},
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    def clean_code(self) -> str:
        code = str(self.cleaned_data["code"])
        if "\x00" in code:
            raise forms.ValidationError("This is not a licence code; check it and try again.")
        return code
