"""Reading and checking the course files: every problem is found before anything is written.

Layout: `<root>/courses/<course>/course.yaml`, `lessons/<lesson>.yaml`, `glossary.yaml`.
Each problem names the file, the item in it and the field, so an author can go straight there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from rest_framework import serializers

from course import markdown
from course.content import parts
from course.content.schema import CourseSchema, GlossarySchema, LessonSchema
from course.models import Access
from course.web import embeds

# libyaml's parser where PyYAML was built with it (its wheels are): the same safe subset of
# YAML, parsed in C (the shipped content is read in 1.4 s instead of 3.0 s).
SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def yaml_load(source: Any) -> Any:
    """YAML text or an open file, read safely (plain data only, no Python objects)."""
    return yaml.load(source, Loader=SAFE_LOADER)


@dataclass(frozen=True)
class ContentProblem:
    file: str
    item: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.item}: {self.field}: {self.message}"


class ContentInvalid(Exception):
    def __init__(self, problems: list[ContentProblem]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the content files")
        self.problems = problems


@dataclass
class LessonData:
    file: str
    slug: str
    title: str
    summary: str
    minutes: int
    access: str
    prerequisites: list[str]
    sections: list[dict[str, Any]]
    takeaways: list[str]
    sources: list[str]
    number: int = 0


@dataclass
class CourseData:
    file: str
    slug: str
    title: str
    summary: str
    lessons: list[LessonData] = field(default_factory=list)
    glossary: list[dict[str, Any]] = field(default_factory=list)


def _flatten(detail: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    if isinstance(detail, dict):
        return [
            pair for key, value in detail.items() for pair in _flatten(value, (*path, str(key)))
        ]
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return [(path, str(item)) for item in detail]
        return [pair for value in detail for pair in _flatten(value, path)]
    return [(path, str(detail))]


class Reader:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.problems: list[ContentProblem] = []

    def name(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def problem(self, path: Path, item: str, field_name: str, message: str) -> None:
        self.problems.append(ContentProblem(self.name(path), item, field_name, message))

    def load_yaml(self, path: Path) -> Any:
        try:
            with path.open(encoding="utf-8") as handle:
                return yaml_load(handle)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "file"
            reason = getattr(exc, "problem", None) or str(exc)
            self.problem(path, where, "-", f"not valid YAML: {reason}")
        except UnicodeDecodeError:
            self.problem(path, "file", "-", "not UTF-8 text")
        return None

    def check_markdown(self, path: Path, item: str, field_name: str, text: str) -> None:
        """Reports each formula in `text` that cannot be typeset (it would show as code)."""
        for message in markdown.formula_problems(text):
            self.problem(path, item, field_name, message)

    def validate(self, path: Path, schema: Any, data: Any, describe: Any) -> Any:
        try:
            return schema.run_validation(data)
        except serializers.ValidationError as exc:
            for keys, message in _flatten(exc.detail):
                item, field_name = describe(data, keys)
                self.problem(path, item, field_name, message)
            return None


def _describe_lesson(data: Any, keys: tuple[str, ...]) -> tuple[str, str]:
    slug = data.get("slug") if isinstance(data, dict) else None
    if len(keys) >= 3 and keys[0] == "sections" and keys[1].isdigit():
        index = int(keys[1])
        sections = data.get("sections") if isinstance(data, dict) else None
        section_slug = ""
        if isinstance(sections, list) and index < len(sections):
            section = sections[index]
            section_slug = f" '{section.get('slug')}'" if isinstance(section, dict) else ""
        return f"section {index + 1}{section_slug}", ".".join(keys[2:])
    return f"lesson '{slug}'" if slug else "lesson", ".".join(keys) or "-"


def _describe_course(data: Any, keys: tuple[str, ...]) -> tuple[str, str]:
    slug = data.get("slug") if isinstance(data, dict) else None
    return f"course '{slug}'" if slug else "course", ".".join(keys) or "-"


def _describe_term(data: Any, keys: tuple[str, ...]) -> tuple[str, str]:
    if keys and keys[0].isdigit():
        index = int(keys[0])
        slug = ""
        if isinstance(data, list) and index < len(data) and isinstance(data[index], dict):
            slug = f" '{data[index].get('slug')}'"
        return f"term {index + 1}{slug}", ".".join(keys[1:]) or "-"
    return "glossary", ".".join(keys) or "-"


@dataclass
class Content:
    courses: list[CourseData]
    parts: dict[str, Any] = field(default_factory=dict)


def read_content(root: Path) -> Content:
    """Every course under `root`, and every registered part, checked.

    Raises ContentInvalid listing all problems, so an author sees them at once.
    """
    reader = Reader(root)
    courses_dir = root / "courses"
    if not courses_dir.is_dir():
        raise ContentInvalid([ContentProblem(str(root), "folder", "courses", "no courses/ folder")])

    courses: list[CourseData] = []
    lesson_owner: dict[str, str] = {}
    for course_dir in sorted(p for p in courses_dir.iterdir() if p.is_dir()):
        course = _read_course(reader, course_dir)
        if course is None:
            continue
        for lesson in course.lessons:
            if lesson.slug in lesson_owner:
                reader.problem(
                    root / lesson.file,
                    f"lesson '{lesson.slug}'",
                    "slug",
                    f"duplicate slug: also a lesson of course '{lesson_owner[lesson.slug]}'",
                )
            lesson_owner[lesson.slug] = course.slug
        if any(c.slug == course.slug for c in courses):
            reader.problem(
                course_dir / "course.yaml", f"course '{course.slug}'", "slug", "duplicate slug"
            )
        courses.append(course)

    extra = {
        name: part.read(reader=reader, root=root, courses=courses)
        for name, part in parts.registered().items()
    }
    if reader.problems:
        raise ContentInvalid(reader.problems)
    return Content(courses=courses, parts=extra)


def _read_course(reader: Reader, course_dir: Path) -> CourseData | None:
    course_file = course_dir / "course.yaml"
    if not course_file.is_file():
        reader.problem(course_file, "course", "-", "missing course.yaml")
        return None
    raw = reader.load_yaml(course_file)
    data = reader.validate(course_file, CourseSchema(), raw, _describe_course)
    if data is None:
        return None
    if data["slug"] != course_dir.name:
        reader.problem(
            course_file,
            f"course '{data['slug']}'",
            "slug",
            f"must match the folder name '{course_dir.name}'",
        )
    course = CourseData(
        file=reader.name(course_file),
        slug=data["slug"],
        title=data["title"],
        summary=data["summary"],
    )

    order = data["lessons"]
    for slug in sorted({s for s in order if order.count(s) > 1}):
        reader.problem(course_file, f"course '{course.slug}'", "lessons", f"'{slug}' listed twice")

    lessons: dict[str, LessonData] = {}
    lesson_dir = course_dir / "lessons"
    for path in sorted(lesson_dir.glob("*.yaml")) if lesson_dir.is_dir() else []:
        lesson = _read_lesson(reader, path)
        if lesson is None:
            continue
        if path.stem != lesson.slug:
            reader.problem(
                path, f"lesson '{lesson.slug}'", "slug", f"must match the file name '{path.stem}'"
            )
        if lesson.slug in lessons:
            reader.problem(path, f"lesson '{lesson.slug}'", "slug", "duplicate slug")
        elif lesson.slug not in order:
            reader.problem(
                path, f"lesson '{lesson.slug}'", "slug", "not listed in course.yaml 'lessons'"
            )
        lessons[lesson.slug] = lesson

    position = {slug: index for index, slug in enumerate(order)}
    for slug in order:
        if slug not in lessons and not (lesson_dir / f"{slug}.yaml").exists():
            reader.problem(
                course_file,
                f"course '{course.slug}'",
                "lessons",
                f"'{slug}' has no file lessons/{slug}.yaml",
            )
    for slug, lesson in lessons.items():
        lesson.number = position.get(slug, 0) + 1
        lesson_path = reader.root.parent / lesson.file
        for prerequisite in lesson.prerequisites:
            if prerequisite not in lessons:
                reader.problem(
                    lesson_path,
                    f"lesson '{slug}'",
                    "prerequisites",
                    f"unknown prerequisite '{prerequisite}'",
                )
            elif position.get(prerequisite, 0) >= position.get(slug, 0):
                reader.problem(
                    lesson_path,
                    f"lesson '{slug}'",
                    "prerequisites",
                    f"prerequisite '{prerequisite}' must come earlier in the course",
                )
            elif lesson.access == Access.FREE and lessons[prerequisite].access == Access.PRO:
                # Free learners could never meet it.
                reader.problem(
                    lesson_path,
                    f"lesson '{slug}'",
                    "prerequisites",
                    f"a free lesson cannot require the Pro lesson '{prerequisite}'",
                )
    course.lessons = sorted(
        (lesson for lesson in lessons.values() if lesson.slug in position),
        key=lambda lesson: lesson.number,
    )
    course.glossary = _read_glossary(reader, course_dir / "glossary.yaml", set(lessons))
    return course


def _read_lesson(reader: Reader, path: Path) -> LessonData | None:
    raw = reader.load_yaml(path)
    data = reader.validate(path, LessonSchema(), raw, _describe_lesson)
    if data is None:
        return None
    seen: set[str] = set()
    for index, section in enumerate(data["sections"]):
        item = f"section {index + 1} '{section['slug']}'"
        if section["slug"] in seen:
            reader.problem(path, item, "slug", "duplicate slug in this lesson")
        seen.add(section["slug"])
        reader.check_markdown(path, item, "body", section["body"])
        for embed in markdown.embeds(section["body"]):
            for message in embeds.problems(embed.kind, embed.name, embed.state):
                reader.problem(path, item, "body", f"line {embed.line}: {message}")
        section.setdefault("access", data["access"])
        if data["access"] == "free" and section["access"] == "pro":
            reader.problem(path, item, "access", "a free lesson cannot have a pro section")
    return LessonData(file=reader.name(path), **data)


def _read_glossary(reader: Reader, path: Path, lesson_slugs: set[str]) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    raw = reader.load_yaml(path)
    terms = reader.validate(path, GlossarySchema, raw, _describe_term)
    if terms is None:
        return []
    seen: set[str] = set()
    for index, term in enumerate(terms):
        item = f"term {index + 1} '{term['slug']}'"
        if term["slug"] in seen:
            reader.problem(path, item, "slug", "duplicate slug in this glossary")
        seen.add(term["slug"])
        reader.check_markdown(path, item, "definition", term["definition"])
        if term.get("lesson") and term["lesson"] not in lesson_slugs:
            reader.problem(path, item, "lesson", f"unknown lesson '{term['lesson']}'")
    return list(terms)
