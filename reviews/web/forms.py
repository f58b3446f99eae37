"""The answer form every page shares: what the learner typed or picked, and what the server
served with it (a signed `served` stamp naming the question, when it was served and a key that
makes a double-click answer once; the variant token)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings
from django.core import signing
from django.utils.safestring import SafeString, mark_safe

from quizzes.models import Choice, Question
from reviews.models import Answer
from reviews.services import Submitted

_SALT = "residual.reviews.web.served"
MAX_DURATION_MS = 86_400_000


@dataclass(frozen=True)
class Stamp:
    """What a form's `served` field says: the question, when it was served (ms since the
    epoch), and the form's own key."""

    question_id: int
    served_ms: int
    key: str


def stamp(question_id: int) -> str:
    claims = {"q": question_id, "t": int(time.time() * 1000), "k": secrets.token_urlsafe(12)}
    return signing.dumps(claims, salt=_SALT, compress=True)


def read_stamp(value: str, *, question_id: int) -> Stamp | None:
    try:
        claims = signing.loads(value, salt=_SALT, max_age=settings.VARIANT_TOKEN_MAX_AGE)
    except signing.BadSignature:
        return None
    if not isinstance(claims, dict) or claims.get("q") != question_id:
        return None
    served, key = claims.get("t"), claims.get("k")
    if not isinstance(served, int) or not isinstance(key, str):
        return None
    return Stamp(question_id, served, key)


def inline_html(html: str) -> SafeString:
    """A choice's text (content HTML, cleaned at load) without its paragraph, to sit in a
    label."""
    text = html.strip()
    if text.startswith("<p>") and text.endswith("</p>") and text.count("<p>") == 1:
        text = text[3:-4]
    return mark_safe(text)


class _KeyedOptions:
    """Choices pressed by their number key (1, 2, ...) when the page asks for keys."""

    option_template_name = "reviews/answering/choice_option.html"
    keys = False

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(*args, **kwargs)  # type: ignore[misc]
        option["keys"] = self.keys
        option["number"] = int(option["index"]) + 1
        return option


class KeyedRadioSelect(_KeyedOptions, forms.RadioSelect):
    pass


class KeyedCheckboxes(_KeyedOptions, forms.CheckboxSelectMultiple):
    pass


RATINGS = [(r.value, r.label) for r in Answer.Rating]
ADJUSTMENTS = [
    ("lower", "One step lower"),
    ("suggested", "As the key points suggest"),
    ("higher", "One step higher"),
]
_STEP = {"lower": -1, "suggested": 0, "higher": 1}


class AnswerForm(forms.Form):
    """One question's answer. Its fields follow the question's kind: a number typed, one
    choice or several (in the order they were shown), or free text rated after the model
    answer was revealed."""

    served = forms.CharField(widget=forms.HiddenInput, max_length=400)
    variant = forms.CharField(widget=forms.HiddenInput, required=False, max_length=500)
    elapsed_ms = forms.CharField(widget=forms.HiddenInput, required=False, max_length=12)

    def __init__(
        self,
        *args: Any,
        question: Question,
        choices: Sequence[Choice] = (),
        keys: bool = False,
        autofocus: bool = False,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("auto_id", f"q{question.pk}-%s")
        super().__init__(*args, **kwargs)
        self.question = question
        self.stamp: Stamp | None = None
        focus = {"autofocus": "", "data-autofocus": ""} if autofocus else {}
        if question.kind == Question.Kind.NUMERIC:
            self.fields["response"] = forms.CharField(
                label="Your answer",
                max_length=200,
                strip=False,
                error_messages={"required": "Type your answer as a number."},
                widget=forms.TextInput(
                    attrs={"inputmode": "decimal", "autocomplete": "off", "spellcheck": "false"}
                    | focus
                ),
                help_text="A number: 0.5, 1/2, 50%, 1.2e6 and 1,200,000 all read as you mean.",
            )
        elif question.is_choice:
            options = [(str(c.pk), inline_html(c.text_html)) for c in choices]
            if question.kind == Question.Kind.SINGLE_CHOICE:
                widget: forms.Widget = KeyedRadioSelect(attrs={"data-key-in-field": ""})
                self.fields["choice"] = forms.ChoiceField(
                    label="Pick one answer",
                    choices=options,
                    widget=widget,
                    error_messages={"required": "Pick one answer."},
                )
            else:
                widget = KeyedCheckboxes(attrs={"data-key-in-field": ""})
                self.fields["choice"] = forms.MultipleChoiceField(
                    label="Pick every answer that is right",
                    choices=options,
                    widget=widget,
                    error_messages={"required": "Pick at least one answer."},
                )
            widget.keys = keys  # type: ignore[attr-defined]
        else:
            self.fields["response"] = forms.CharField(
                label="Your answer",
                max_length=2000,
                required=False,
                strip=False,
                widget=forms.Textarea(attrs={"rows": 4} | focus),
                help_text="Write it for yourself, then compare it with the model answer and "
                "rate how well you knew it.",
            )
            self.fields["reveal"] = forms.IntegerField(
                widget=forms.HiddenInput, required=False, min_value=1, max_value=2**63 - 1
            )
            self.fields["self_rating"] = forms.ChoiceField(
                choices=RATINGS, required=False, widget=forms.HiddenInput
            )
            if question.in_bank:
                # An interview question: the key points the answer covered suggest the rating.
                self.fields["covered"] = forms.MultipleChoiceField(
                    label="Which key points did your answer cover?",
                    choices=[(str(i), p) for i, p in enumerate(question.entry.key_points)],
                    required=False,
                    widget=KeyedCheckboxes(attrs={"data-key-point": ""}),
                    help_text="Tick the ones you said, even in other words.",
                )
                self.fields["adjust"] = forms.ChoiceField(
                    label="Your rating",
                    choices=ADJUSTMENTS,
                    initial="suggested",
                    required=False,
                    widget=KeyedRadioSelect(attrs={"data-adjust": ""}),
                    help_text="All of them suggests Good, most of them Hard, fewer Again. Move "
                    "it a step if that is fairer.",
                )
        for name in ("response", "choice", "covered", "adjust"):
            if name in self.fields:
                # The site's field layout, with this field's own errors shown beside it.
                self.fields[name].template_name = "reviews/answering/field.html"

    def clean_served(self) -> str:
        value: str = self.cleaned_data["served"]
        self.stamp = read_stamp(value, question_id=self.question.pk)
        if self.stamp is None:
            raise forms.ValidationError(
                "This question was served too long ago or for another one. Here it is afresh."
            )
        return value

    def clean_elapsed_ms(self) -> int | None:
        # Filled by the browser's script; anything unreadable is simply not a time.
        text = self.cleaned_data.get("elapsed_ms") or ""
        return int(text) if text.isdigit() else None

    @property
    def key(self) -> str:
        """The idempotency key of this served form (a double-click sends it twice)."""
        assert self.stamp is not None
        return f"web:{self.stamp.key}"

    def duration_ms(self, *, now_ms: int) -> int:
        """How long the learner took. The time since the server served the form is the
        longest it can have been; the browser's own reading may only make it longer, never
        shorter, so a client clock cannot make an answer count as fast."""
        assert self.stamp is not None
        waited = max(now_ms - self.stamp.served_ms, 0)
        told = self.cleaned_data.get("elapsed_ms")
        return min(max(waited, told or 0), MAX_DURATION_MS)

    def covered(self) -> list[int]:
        """The key points ticked, by their place in the question's list."""
        return sorted(int(v) for v in self.cleaned_data.get("covered") or [])

    def step(self) -> int:
        """How far the learner moved the suggested rating: -1, 0 or 1."""
        return _STEP.get(self.cleaned_data.get("adjust") or "suggested", 0)

    def picked(self) -> list[int]:
        value = self.cleaned_data.get("choice")
        if value is None:
            return []
        return sorted(int(v) for v in ([value] if isinstance(value, str) else value))

    def submitted(self, *, mode: str, now_ms: int) -> Submitted:
        data = self.cleaned_data
        return Submitted(
            response=data.get("response"),
            choice_ids=self.picked() if self.question.is_choice else None,
            variant=data.get("variant") or None,
            self_rating=data.get("self_rating") or None,
            mode=mode,
            duration_ms=self.duration_ms(now_ms=now_ms),
            reveal=data.get("reveal"),
        )

    def fingerprint_body(self, *, mode: str) -> dict[str, Any]:
        """What identifies the answer for its idempotency key (not the time it took, which a
        second click reads differently)."""
        data = self.cleaned_data
        return {
            "mode": mode,
            "response": data.get("response"),
            "choice_ids": self.picked(),
            "variant": data.get("variant") or "",
            "self_rating": data.get("self_rating") or "",
            "reveal": data.get("reveal"),
            **(
                {"covered": self.covered(), "adjust": self.step()}
                if "covered" in self.fields
                else {}
            ),
        }


class RevealForm(forms.Form):
    """ "Show the answer": the question as served (its stamp and variant token) and, for free
    text, what the learner wrote before looking."""

    served = forms.CharField(max_length=400)
    variant = forms.CharField(required=False, max_length=500)
    response = forms.CharField(required=False, max_length=2000, strip=False)
    aloud = forms.BooleanField(required=False)  # an interview answer said, not typed
