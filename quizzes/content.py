"""The question bank's files: `content/courses/<course>/questions/<lesson>.yaml`.

Registered with `load_content` as a content part: checked with the courses (every problem named
by file, item and field), written in the same transaction, upserted by key, archived when gone.
A question's version goes up whenever what counts as right changes, so old answers keep the
version they were graded against. A load that changes anything bumps the bank revision, so
learners' decks catch up (see `reviews.deck`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rest_framework import serializers

from course import markdown
from course.content.files import CourseData, Reader
from course.content.schema import StrictSerializer, slug_field
from course.content.sync import Changes, archive, touch, upsert
from course.models import Lesson, Section
from engine import FAMILIES, Interval, Mistake, Tolerance
from engine.answer_key import exact_fraction, matches
from quizzes.models import Choice, Question
from quizzes.services import bank_revision_bump

KINDS = Question.Kind.values
TOPICS = Question.Topic.values


class NumberField(serializers.Field[Any, Any, Any, Any]):
    """An int or a float as written in YAML (never a truth value or text)."""

    default_error_messages = {"invalid": "Must be a number."}

    def to_internal_value(self, data: Any) -> int | float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class ChoiceSchema(StrictSerializer):
    text = serializers.CharField(max_length=500)
    correct = serializers.BooleanField(default=False)
    explanation = serializers.CharField(max_length=2000, required=False, default="")


class MistakeSchema(StrictSerializer):
    code = serializers.RegexField(r"^[a-z][a-z0-9_]*\Z", max_length=40)
    value = NumberField()
    message = serializers.CharField(max_length=300)


class ToleranceSchema(StrictSerializer):
    absolute = serializers.FloatField(required=False, min_value=0)
    relative = serializers.FloatField(required=False, min_value=0, max_value=1)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(attrs) != 1:
            raise serializers.ValidationError("Give exactly one of 'absolute' or 'relative'.")
        return attrs


class QuestionSchema(StrictSerializer):
    key = slug_field()
    section = slug_field(help_text="The section of the lesson this question follows.")
    kind = serializers.ChoiceField(choices=KINDS)
    topic = serializers.ChoiceField(choices=TOPICS)
    difficulty = serializers.IntegerField(min_value=1, max_value=5)
    interview = serializers.BooleanField(default=False)
    prompt = serializers.CharField(max_length=4000)
    explanation = serializers.CharField(max_length=8000, required=False, default="")
    choices = serializers.ListField(child=ChoiceSchema(), required=False, max_length=8)
    answer = NumberField(required=False)
    answer_interval = serializers.ListField(
        child=NumberField(allow_null=True), min_length=2, max_length=2, required=False
    )
    interval_open = serializers.ListField(
        child=serializers.BooleanField(), min_length=2, max_length=2, required=False
    )
    tolerance = ToleranceSchema(required=False)
    unit = serializers.ChoiceField(choices=Question.Unit.values, required=False)
    mistakes = serializers.ListField(child=MistakeSchema(), required=False, default=list)
    solution_steps = serializers.ListField(
        child=serializers.CharField(max_length=1000), required=False, default=list
    )
    generator = serializers.ChoiceField(choices=sorted(FAMILIES), required=False)
    model_answer = serializers.CharField(max_length=20_000, required=False, default="")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["kind"]
        errors: dict[str, str] = {}
        choices = attrs.get("choices") or []
        right = sum(1 for c in choices if c["correct"])
        numeric_fields = ("answer", "answer_interval", "tolerance", "generator", "unit")
        if kind in ("single_choice", "multiple_choice"):
            if len(choices) < 2:
                errors["choices"] = "A choice question needs 2 to 8 choices."
            elif kind == "single_choice" and right != 1:
                errors["choices"] = (
                    f"A single-choice question needs exactly 1 right choice, not {right}."
                )
            elif kind == "multiple_choice" and right < 1:
                errors["choices"] = "A multiple-choice question needs at least 1 right choice."
        elif choices:
            errors["choices"] = f"Only choice questions have choices, not {kind}."
        if kind == "numeric":
            given = [f for f in ("answer", "answer_interval", "generator") if f in attrs]
            if len(given) != 1:
                errors["answer"] = "Give exactly one of answer, answer_interval or generator."
            elif "generator" in attrs and (
                attrs.get("mistakes") or "tolerance" in attrs or "unit" in attrs
            ):
                errors["generator"] = "A generated question takes its key from the engine."
        else:
            for name in numeric_fields:
                if name in attrs:
                    errors[name] = f"Only numeric questions have '{name}'."
        if (kind == "free_text" or attrs["interview"]) and not attrs["model_answer"].strip():
            errors["model_answer"] = "Free-text and interview questions need a model answer."
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


QuestionFileSchema = serializers.ListField(child=QuestionSchema(), min_length=1)


@dataclass
class QuestionData:
    lesson: str
    position: int
    fields: dict[str, Any]


def answer_key(data: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
    """The stored answer and tolerance of a fixed numeric question."""
    if "answer_interval" in data:
        low, high = data["answer_interval"]
        low_open, high_open = data.get("interval_open") or [False, False]
        interval = Interval(low, high, low_closed=not low_open, high_closed=not high_open)
        return interval.to_dict(), None
    tolerance = data.get("tolerance")
    if tolerance is None:
        return data["answer"], Tolerance.exact().to_dict()
    kind, amount = next(iter(tolerance.items()))
    return data["answer"], Tolerance(kind, amount).to_dict()


def _describe(data: Any, keys: tuple[str, ...]) -> tuple[str, str]:
    if keys and keys[0].isdigit():
        index = int(keys[0])
        key = ""
        if isinstance(data, list) and index < len(data) and isinstance(data[index], dict):
            key = f" '{data[index].get('key')}'"
        return f"question {index + 1}{key}", ".".join(keys[1:]) or "-"
    return "questions", ".".join(keys) or "-"


class QuestionBank:
    def read(self, *, reader: Reader, root: Path, courses: list[CourseData]) -> list[QuestionData]:
        found: list[QuestionData] = []
        owner: dict[str, str] = {}
        for course in courses:
            folder = root / "courses" / course.slug / "questions"
            lessons = {lesson.slug: lesson for lesson in course.lessons}
            for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
                if path.stem not in lessons:
                    reader.problem(
                        path, "questions", "-", f"no lesson '{path.stem}' in course '{course.slug}'"
                    )
                    continue
                raw = reader.load_yaml(path)
                questions = reader.validate(path, QuestionFileSchema, raw, _describe)
                for position, question in enumerate(questions or [], start=1):
                    item = f"question {position} '{question['key']}'"
                    if question["key"] in owner:
                        reader.problem(
                            path, item, "key", f"duplicate key: also in {owner[question['key']]}"
                        )
                        continue
                    owner[question["key"]] = reader.name(path)
                    sections = [s["slug"] for s in lessons[path.stem].sections]
                    if question["section"] not in sections:
                        reader.problem(
                            path,
                            item,
                            "section",
                            f"no section '{question['section']}' in lesson '{path.stem}';"
                            f" its sections are {', '.join(sections)}",
                        )
                    for message in _answer_problems(question):
                        reader.problem(path, item, "mistakes", message)
                    _check_markdown(reader, path, item, question)
                    found.append(QuestionData(path.stem, position, question))
        return found

    def sync(
        self,
        data: list[QuestionData],
        *,
        now: datetime,
        changes: Changes,
        progress: Callable[[str], None],
    ) -> None:
        lessons = {lesson.slug: lesson for lesson in Lesson.objects.all()}
        sections = {
            (section.lesson.slug, section.slug): section
            for section in Section.objects.select_related("lesson")
        }
        existing = {q.key: q for q in Question.objects.filter(category__isnull=True)}
        existing_choices = {(c.question_id, c.position): c for c in Choice.objects.all()}
        kept: set[str] = set()
        kept_choices: set[tuple[int, int]] = set()
        for item in data:
            fields = item.fields
            answer, tolerance = (None, None)
            if fields["kind"] == "numeric" and "generator" not in fields:
                answer, tolerance = answer_key(fields)
            choices = fields.get("choices") or []
            values = {
                "key": fields["key"],
                "kind": fields["kind"],
                "topic": fields["topic"],
                "difficulty": fields["difficulty"],
                "lesson": lessons[item.lesson],
                "section": sections[(item.lesson, fields["section"])],
                "position": item.position,
                "interview": fields["interview"],
                "prompt_markdown": fields["prompt"],
                "prompt_html": markdown.render(fields["prompt"]),
                "explanation_markdown": fields["explanation"],
                "explanation_html": markdown.render(fields["explanation"]),
                "model_answer_markdown": fields["model_answer"],
                "model_answer_html": markdown.render(fields["model_answer"]),
                "generator": fields.get("generator", ""),
                "answer": answer,
                "tolerance": tolerance,
                "unit": fields.get("unit", ""),
                "mistakes": fields["mistakes"],
                "solution_steps": fields["solution_steps"],
                "archived_at": None,
            }
            fingerprint = _fingerprint(values, choices)
            row = existing.get(fields["key"])
            values["answer_fingerprint"] = fingerprint
            if row is not None and row.answer_fingerprint != fingerprint:
                values["version"] = row.version + 1
            question = upsert(Question, existing, fields["key"], values, changes, "question")
            kept.add(question.key)
            before_choices = changes.changed_count
            for position, choice in enumerate(choices, start=1):
                kept_choices.add((question.pk, position))
                upsert(
                    Choice,
                    existing_choices,
                    (question.pk, position),
                    {
                        "question": question,
                        "position": position,
                        "text_markdown": choice["text"],
                        "text_html": markdown.render(choice["text"]),
                        "is_correct": choice["correct"],
                        "explanation_html": markdown.render(choice["explanation"]),
                    },
                    changes,
                    "choice",
                )
            if changes.changed_count > before_choices:
                touch(question, now)  # choices keep no change time of their own
        gone_choices = [c for k, c in existing_choices.items() if k not in kept_choices]
        for choice in gone_choices:
            choice.delete()  # choices have no history of their own; answers keep their ids
            changes.note("choice", "archived")
        Question.objects.filter(pk__in={c.question_id for c in gone_choices}).update(updated_at=now)
        archive((q for k, q in existing.items() if k not in kept), now, changes, "question")
        if changes.changed:
            # Courses and lessons are synced first, so this covers their changes too.
            bank_revision_bump()
        progress(f"questions: {len(data)} checked")


def _fingerprint(values: dict[str, Any], choices: list[dict[str, Any]]) -> str:
    """What counts as right: the kind, the key, the tolerance, mistakes, the right choices."""
    decisive = {
        "kind": values["kind"],
        "generator": values["generator"],
        "answer": values["answer"],
        "tolerance": values["tolerance"],
        "unit": values["unit"],
        "mistakes": values["mistakes"],
        "choices": [[c["text"], c["correct"]] for c in choices],
    }
    return hashlib.sha256(json.dumps(decisive, sort_keys=True).encode()).hexdigest()


def _check_markdown(reader: Reader, path: Path, item: str, question: dict[str, Any]) -> None:
    for name in ("prompt", "explanation", "model_answer"):
        reader.check_markdown(path, item, name, question[name])
    for index, choice in enumerate(question.get("choices") or []):
        for name in ("text", "explanation"):
            reader.check_markdown(path, item, f"choices.{index}.{name}", choice[name])


def _answer_problems(question: dict[str, Any]) -> list[str]:
    """A mistake whose value would also be graded right, or that another mistake's value is too
    close to tell apart from, could never be named."""
    if question["kind"] != "numeric" or "generator" in question:
        return []
    answer, tolerance = answer_key(question)
    target = Interval.from_dict(answer) if isinstance(answer, dict) else answer
    accepted = Tolerance.from_dict(tolerance) if tolerance else Tolerance.exact()
    mistakes = question["mistakes"]
    problems = [
        f"'{mistake['code']}' gives a value that is graded right"
        for mistake in mistakes
        if matches(exact_fraction(mistake["value"]), target, accepted)
    ]
    problems += [
        f"'{first['code']}' and '{second['code']}' give values too close to tell apart"
        for index, first in enumerate(mistakes)
        for second in mistakes[index + 1 :]
        if matches(exact_fraction(first["value"]), second["value"], accepted)
        or matches(exact_fraction(second["value"]), first["value"], accepted)
    ]
    return problems


def mistakes_of(question: Question) -> list[Mistake]:
    return [Mistake(m["code"], m["message"], m["value"]) for m in question.mistakes]
