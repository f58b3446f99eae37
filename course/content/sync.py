"""Writing checked course files into the database: upsert by slug, archive what is gone.

All of it runs in one transaction (the caller's), rows are only saved when a field differs, so a
second run over the same files changes nothing and says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import models, transaction

from course import markdown, revisions
from course.content import parts
from course.content.files import Content
from course.models import Course, GlossaryTerm, Lesson, Section


@dataclass
class Changes:
    counts: Counter[str] = field(default_factory=Counter)

    def note(self, kind: str, outcome: str) -> None:
        self.counts[f"{kind} {outcome}"] += 1

    @property
    def changed_count(self) -> int:
        return sum(n for key, n in self.counts.items() if not key.endswith(" unchanged"))

    @property
    def changed(self) -> bool:
        return self.changed_count > 0

    def summary(self) -> str:
        kinds: tuple[str, ...] = ("course", "lesson", "section", "glossary term", "question")
        kinds += ("choice", "interview category", "interview entry")
        lines = []
        for kind in kinds:
            parts = [
                f"{self.counts[f'{kind} {outcome}']} {outcome}"
                for outcome in ("created", "updated", "archived", "unchanged")
                if self.counts[f"{kind} {outcome}"]
            ]
            if parts:
                plural = kind[:-1] + "ies" if kind.endswith("y") else kind + "s"
                lines.append(f"{plural}: {', '.join(parts)}")
        return "\n".join(lines)


def _with_change_time(model: type[models.Model], fields: list[str]) -> list[str]:
    """`fields` and, when the model keeps one, its change time: auto_now is only written when
    named in update_fields, and apps syncing by delta go by it."""
    names = {f.name for f in model._meta.concrete_fields}
    return [*fields, "updated_at"] if "updated_at" in names else fields


def touch(row: Any, now: datetime) -> None:
    """Marks `row` changed now: something it shows (a section, a term, a choice) changed."""
    row.updated_at = now
    type(row)._default_manager.filter(pk=row.pk).update(updated_at=now)


def upsert(
    model: type[models.Model],
    existing: dict[Any, Any],
    key: Any,
    values: dict[str, Any],
    changes: Changes,
    kind: str,
) -> Any:
    """Create the row, or save only the fields that differ; returns the row."""
    row = existing.get(key)
    if row is None:
        row = model._default_manager.create(**values)
        changes.note(kind, "created")
        return row
    changed = [name for name, value in values.items() if getattr(row, name) != value]
    if changed:
        for name in changed:
            setattr(row, name, values[name])
        row.save(update_fields=_with_change_time(model, changed))
        changes.note(kind, "updated")
    else:
        changes.note(kind, "unchanged")
    return row


def archive(rows: Iterable[Any], now: datetime, changes: Changes, kind: str) -> None:
    for row in rows:
        if row.archived_at is None:
            row.archived_at = now
            row.save(update_fields=_with_change_time(type(row), ["archived_at"]))
            changes.note(kind, "archived")


@transaction.atomic
def content_sync(*, content: Content, now: datetime, progress: Callable[[str], None]) -> Changes:
    """Writes the content files' courses, lessons, sections, glossary and registered parts
    (the question bank), in one transaction; the content revision changes once, with it."""
    with revisions.batched():
        changes = _content_sync(content=content, now=now, progress=progress)
        revisions.bump()  # some writes are `QuerySet.update`s, which no signal reports
    return changes


def _content_sync(*, content: Content, now: datetime, progress: Callable[[str], None]) -> Changes:
    changes = Changes()
    courses = content.courses
    existing_courses = {c.slug: c for c in Course.objects.all()}
    existing_lessons = {lesson.slug: lesson for lesson in Lesson.objects.all()}
    existing_sections: dict[tuple[int, str], Section] = {
        (s.lesson_id, s.slug): s for s in Section.objects.all()
    }
    existing_terms: dict[tuple[int, str], GlossaryTerm] = {
        (t.course_id, t.slug): t for t in GlossaryTerm.objects.all()
    }
    kept_lessons: set[str] = set()
    kept_sections: set[tuple[int, str]] = set()
    kept_terms: set[tuple[int, str]] = set()
    lesson_rows: dict[str, Lesson] = {}
    total = sum(len(c.lessons) for c in courses)
    done = 0

    for data in courses:
        course = upsert(
            Course,
            existing_courses,
            data.slug,
            {"slug": data.slug, "title": data.title, "summary": data.summary, "archived_at": None},
            changes,
            "course",
        )
        for lesson_data in data.lessons:
            done += 1
            before = changes.changed_count
            lesson = upsert(
                Lesson,
                existing_lessons,
                lesson_data.slug,
                {
                    "course": course,
                    "slug": lesson_data.slug,
                    "number": lesson_data.number,
                    "title": lesson_data.title,
                    "summary": lesson_data.summary,
                    "minutes": lesson_data.minutes,
                    "access": lesson_data.access,
                    "takeaways": lesson_data.takeaways,
                    "sources": lesson_data.sources,
                    "archived_at": None,
                },
                changes,
                "lesson",
            )
            lesson_rows[lesson.slug] = lesson
            kept_lessons.add(lesson.slug)
            for position, section in enumerate(lesson_data.sections, start=1):
                key = (lesson.pk, section["slug"])
                kept_sections.add(key)
                upsert(
                    Section,
                    existing_sections,
                    key,
                    {
                        "lesson": lesson,
                        "slug": section["slug"],
                        "position": position,
                        "title": section["title"],
                        "access": section["access"],
                        "body_markdown": section["body"],
                        "body_html": markdown.render(section["body"]),
                        "archived_at": None,
                    },
                    changes,
                    "section",
                )
            outcome = "changed" if changes.changed_count > before else "unchanged"
            if outcome == "changed":
                touch(lesson, now)  # its sections may have changed without the lesson row
            progress(f"[{done}/{total}] {data.slug}/{lesson.slug}: {outcome}")

        before_glossary = changes.changed_count
        for term in data.glossary:
            key = (course.pk, term["slug"])
            kept_terms.add(key)
            lesson_slug = term.get("lesson")
            upsert(
                GlossaryTerm,
                existing_terms,
                key,
                {
                    "course": course,
                    "slug": term["slug"],
                    "term": term["term"],
                    "aliases": term["aliases"],
                    "definition_markdown": term["definition"],
                    "definition_html": markdown.render(term["definition"]),
                    "lesson": lesson_rows.get(lesson_slug) if lesson_slug else None,
                    "archived_at": None,
                },
                changes,
                "glossary term",
            )
        if changes.changed_count > before_glossary:
            touch(course, now)  # terms keep no change time of their own; their course does
        progress(f"{data.slug}: glossary, {len(data.glossary)} terms")

    # Prerequisites once every lesson row exists, compared as sets.
    current = Lesson.prerequisites.through.objects.filter(from_lesson__slug__in=kept_lessons)
    have: dict[int, set[int]] = {}
    for from_id, to_id in current.values_list("from_lesson_id", "to_lesson_id"):
        have.setdefault(from_id, set()).add(to_id)
    for data in courses:
        for lesson_data in data.lessons:
            lesson = lesson_rows[lesson_data.slug]
            wanted = {lesson_rows[slug].pk for slug in lesson_data.prerequisites}
            if have.get(lesson.pk, set()) != wanted:
                lesson.prerequisites.set(wanted)
                touch(lesson, now)
                if lesson.slug in existing_lessons:  # a new lesson is already counted as created
                    changes.note("lesson", "updated")

    kept_courses = {c.slug for c in courses}
    archive(
        (c for s, c in existing_courses.items() if s not in kept_courses), now, changes, "course"
    )
    archive(
        (r for s, r in existing_lessons.items() if s not in kept_lessons), now, changes, "lesson"
    )
    gone_sections = [r for k, r in existing_sections.items() if k not in kept_sections]
    archive(gone_sections, now, changes, "section")
    for lesson_id in {r.lesson_id for r in gone_sections}:
        Lesson.objects.filter(pk=lesson_id).update(updated_at=now)
    gone_terms = [r for k, r in existing_terms.items() if k not in kept_terms]
    archive(gone_terms, now, changes, "glossary term")
    for course_id in {r.course_id for r in gone_terms}:
        Course.objects.filter(pk=course_id).update(updated_at=now)
    for name, part in parts.registered().items():
        part.sync(content.parts[name], now=now, changes=changes, progress=progress)
    return changes
