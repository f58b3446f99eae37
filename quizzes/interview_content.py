"""The interview bank's files: `content/interview/categories.yaml` and
`content/interview/questions/<category>.yaml` (the format is in content/README.md).

Registered with `load_content` as a content part, like the courses' questions: checked with
everything else (each problem named by file, question and field; `quizzes.bank_rules` holds the
rules for one question), written in the same transaction, upserted by key and archived when
gone. A bank question is a `Question` without a lesson, in a category, with an
`InterviewEntry` for the rest; its version goes up when what counts as right changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from rest_framework import serializers

from course import markdown
from course.content.files import CourseData, Reader, yaml_load
from course.content.schema import StrictSerializer, slug_field
from course.content.sync import Changes, archive, upsert
from course.models import Lesson
from course.web.diagrams import DIAGRAMS
from engine import FAMILIES
from quizzes import bank_rules
from quizzes.content import (
    MistakeSchema,
    NumberField,
    ToleranceSchema,
    _answer_problems,
    _fingerprint,
    answer_key,
)
from quizzes.interview import plain_text
from quizzes.models import InterviewCategory, InterviewEntry, Level, Question

# Slugs the bank's own pages use under /interview/.
RESERVED = {"q", "mock", "search", "practice"}

# How hard a level reads on the course's 1-5 scale (filters and the export use it).
DIFFICULTY = {Level.JUNIOR: 2, Level.MID: 3, Level.SENIOR: 4}


class CategorySchema(StrictSerializer):
    slug = slug_field()
    title = serializers.CharField(max_length=80)
    summary = serializers.CharField(max_length=300)


CategoryFileSchema = serializers.ListField(child=CategorySchema(), min_length=1)


class NumericSchema(StrictSerializer):
    """The numeric fields a bank question may add (the rest are checked by bank_rules)."""

    answer = NumberField(required=False)
    tolerance = ToleranceSchema(required=False)
    unit = serializers.ChoiceField(choices=Question.Unit.values, required=False)
    mistakes = serializers.ListField(child=MistakeSchema(), required=False, default=list)
    solution_steps = serializers.ListField(
        child=serializers.CharField(max_length=1000), required=False, default=list
    )
    generator = serializers.ChoiceField(choices=sorted(FAMILIES), required=False)


@dataclass
class BankData:
    categories: list[dict[str, Any]]
    questions: list[tuple[str, int, dict[str, Any]]]  # (category, position, fields)


def _course_keys(root: Path) -> set[str]:
    """The keys the courses' question files use (a bank key may not be one of them)."""
    keys: set[str] = set()
    for path in sorted(root.glob("courses/*/questions/*.yaml")):
        try:
            entries = yaml_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue  # the courses' part reports it
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                keys.add(entry["key"])
    return keys


class InterviewBank:
    def read(self, *, reader: Reader, root: Path, courses: list[CourseData]) -> BankData:
        folder = root / "interview"
        data = BankData(categories=[], questions=[])
        if not folder.is_dir():
            return data
        path = folder / "categories.yaml"
        if not path.is_file():
            reader.problem(path, "categories", "-", "the interview bank needs its categories")
            return data
        raw = reader.load_yaml(path)
        categories = reader.validate(
            path, CategoryFileSchema, raw, lambda d, k: (f"category {k[0]}", ".".join(k[1:]))
        )
        slugs: list[str] = []
        for category in categories or []:
            slug = category["slug"]
            if slug in RESERVED:
                page = f"/interview/{slug}/"
                message = f"'{slug}' names a page of the bank ({page})"
                reader.problem(path, f"category '{slug}'", "slug", message)
                continue
            if category["slug"] in slugs:
                reader.problem(path, f"category '{category['slug']}'", "slug", "used twice")
                continue
            slugs.append(category["slug"])
            data.categories.append(category)
        files = {p.stem: p for p in sorted((folder / "questions").glob("*.yaml"))}
        for stem, question_path in files.items():
            if stem not in slugs:
                reader.problem(question_path, "questions", "-", f"no category '{stem}'")
        for slug in slugs:
            if slug not in files:
                reader.problem(folder / "questions" / f"{slug}.yaml", "questions", "-", "missing")

        lessons = {f"{c.slug}/{lesson.slug}" for c in courses for lesson in c.lessons}
        taken = _course_keys(root)
        owner: dict[str, str] = {}
        for slug in slugs:
            if slug not in files:
                continue
            question_path = files[slug]
            entries = reader.load_yaml(question_path)
            if not isinstance(entries, list) or not entries:
                reader.problem(question_path, "questions", "-", "a list of questions")
                continue
            for position, entry in enumerate(entries, start=1):
                fields = self._checked(reader, question_path, position, entry, lessons=lessons)
                if fields is None:
                    continue
                key = fields["key"]
                item = f"question {position} '{key}'"
                if key in taken:
                    reader.problem(question_path, item, "key", "a course question has this key")
                elif key in owner:
                    reader.problem(question_path, item, "key", f"also in {owner[key]}")
                else:
                    owner[key] = reader.name(question_path)
                    data.questions.append((slug, position, fields))
        for slug, position, fields in data.questions:
            for other in fields.get("related") or []:
                if other not in owner:
                    reader.problem(
                        files[slug],
                        f"question {position} '{fields['key']}'",
                        "related",
                        f"no bank question '{other}'",
                    )
        return data

    def _checked(
        self, reader: Reader, path: Path, position: int, entry: Any, *, lessons: set[str]
    ) -> dict[str, Any] | None:
        """The question's fields when it keeps every rule; its problems reported otherwise."""
        name = entry.get("key") if isinstance(entry, dict) else None
        item = f"question {position}" + (f" '{name}'" if name else "")
        errors = bank_rules.question_errors(entry, diagrams=DIAGRAMS)
        for field_name, message in errors.items():
            reader.problem(path, item, field_name, message)
        if errors:
            return None
        fields = dict(entry)
        numeric = {k: v for k, v in entry.items() if k in bank_rules.NUMERIC}
        if numeric:
            checked = reader.validate(
                path, NumericSchema(), numeric, lambda d, k: (item, ".".join(k) or "-")
            )
            if checked is None:
                return None
            fields.update(checked)
            shaped = {"kind": "numeric", **checked}
            for message in _answer_problems(shaped):
                reader.problem(path, item, "mistakes", message)
        if "lesson" in fields and fields["lesson"] not in lessons:
            reader.problem(path, item, "lesson", f"no lesson '{fields['lesson']}'")
            return None
        for field_name in ("question", "model_answer", "notes"):
            reader.check_markdown(path, item, field_name, fields[field_name])
        return fields

    def sync(
        self,
        data: BankData,
        *,
        now: datetime,
        changes: Changes,
        progress: Callable[[str], None],
    ) -> None:
        existing_categories = {c.slug: c for c in InterviewCategory.objects.all()}
        categories = {}
        for position, category in enumerate(data.categories):
            categories[category["slug"]] = upsert(
                InterviewCategory,
                existing_categories,
                category["slug"],
                {**category, "position": position, "archived_at": None},
                changes,
                "interview category",
            )
        archive(
            (c for slug, c in existing_categories.items() if slug not in categories),
            now,
            changes,
            "interview category",
        )

        lessons = {
            f"{course_slug}/{slug}": pk
            for pk, course_slug, slug in Lesson.objects.values_list("pk", "course__slug", "slug")
        }
        existing = {q.key: q for q in Question.objects.filter(category__isnull=False)}
        entries = {e.question_id: e for e in InterviewEntry.objects.all()}
        kept: set[str] = set()
        for slug, position, fields in data.questions:
            values = self._question_values(fields, categories[slug], position)
            row = existing.get(fields["key"])
            if row is not None and row.answer_fingerprint != values["answer_fingerprint"]:
                values["version"] = row.version + 1
            question = upsert(Question, existing, fields["key"], values, changes, "question")
            kept.add(question.key)
            upsert(
                InterviewEntry,
                entries,
                question.pk,
                {
                    "question": question,
                    "notes_markdown": fields["notes"],
                    "notes_html": markdown.render(fields["notes"]),
                    "key_points": fields["key_points"],
                    "wrong_turns": fields["wrong_turns"],
                    "follow_ups": fields["follow_ups"],
                    "related": fields.get("related") or [],
                    "sources": fields["sources"],
                    "diagram": fields.get("diagram", ""),
                    "code_problem": (fields.get("code") or {}).get("problem", ""),
                    "code_starter": (fields.get("code") or {}).get("starter", ""),
                    "code_solution": (fields.get("code") or {}).get("solution", ""),
                    "teaching_lesson_id": lessons.get(fields.get("lesson", "")),
                    "search_title": plain_text(fields["question"]),
                    "search_answer": plain_text(
                        " ".join([fields["model_answer"], *fields["key_points"]])
                    ),
                    "search_notes": plain_text(fields["notes"]),
                },
                changes,
                "interview entry",
            )
        archive((q for k, q in existing.items() if k not in kept), now, changes, "question")
        progress(f"interview bank: {len(data.questions)} questions checked")

    @staticmethod
    def _question_values(
        fields: dict[str, Any], category: InterviewCategory, position: int
    ) -> dict[str, Any]:
        numeric = "answer" in fields or "generator" in fields
        code = fields.get("code")
        answer, tolerance = (None, None)
        if "answer" in fields:
            answer, tolerance = answer_key(fields)
        values = {
            "key": fields["key"],
            "kind": Question.Kind.CODE
            if code
            else Question.Kind.NUMERIC
            if numeric
            else Question.Kind.FREE_TEXT,
            "topic": "",
            "difficulty": DIFFICULTY[fields["level"]],
            "lesson": None,
            "section": None,
            "category": category,
            "level": fields["level"],
            "position": position,
            "interview": True,
            "prompt_markdown": fields["question"],
            "prompt_html": markdown.render(fields["question"]),
            "explanation_markdown": "",
            "explanation_html": "",
            "model_answer_markdown": fields["model_answer"],
            "model_answer_html": markdown.render(fields["model_answer"]),
            "generator": fields.get("generator", ""),
            "answer": answer,
            "tolerance": tolerance,
            "unit": fields.get("unit", ""),
            "mistakes": fields.get("mistakes", []),
            "solution_steps": fields.get("solution_steps", []),
            "archived_at": None,
        }
        fingerprint = _fingerprint(values, [])
        if code:
            # What counts as right is the engine's problem it is graded by.
            fingerprint = hashlib.sha256(
                f"{fingerprint}:code:{code['problem']}".encode()
            ).hexdigest()
        values["answer_fingerprint"] = fingerprint
        return values
