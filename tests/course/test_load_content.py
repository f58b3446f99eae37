"""`manage.py load_content`: check everything first, load in one transaction, upsert by slug."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import CommandError, call_command

from course.models import Course, GlossaryTerm, Lesson, LessonProgress, Section
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def lesson(slug: str, **overrides) -> dict:
    return {
        "slug": slug,
        "title": f"About {slug}",
        "summary": "One sentence.",
        "minutes": 10,
        "access": "free",
        "prerequisites": [],
        "sections": [{"slug": "first", "title": "First", "body": "Some **Markdown**."}],
        "takeaways": ["One idea."],
        "sources": ["A paper (2017)."],
        **overrides,
    }


def write_content(root: Path, lessons: list[dict], glossary: list[dict] | None = None) -> Path:
    course_dir = root / "courses" / "demo"
    (course_dir / "lessons").mkdir(parents=True, exist_ok=True)
    for old in (course_dir / "lessons").glob("*.yaml"):
        old.unlink()
    course = {"slug": "demo", "title": "Demo", "summary": "A demo course.", "lessons": []}
    for item in lessons:
        course["lessons"].append(item["slug"])
        (course_dir / "lessons" / f"{item['slug']}.yaml").write_text(yaml.safe_dump(item))
    (course_dir / "course.yaml").write_text(yaml.safe_dump(course))
    (course_dir / "glossary.yaml").write_text(yaml.safe_dump(glossary or []))
    return root


def load(root: Path) -> str:
    out = StringIO()
    call_command("load_content", str(root), stdout=out, stderr=out)
    return out.getvalue()


def load_failing(root: Path) -> str:
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was loaded"):
        call_command("load_content", str(root), stdout=StringIO(), stderr=err)
    return err.getvalue()


def snapshot() -> list:
    return [
        list(model.objects.order_by("pk").values())
        for model in (Course, Lesson, Section, GlossaryTerm)
    ]


def test_the_shipped_course_loads_and_a_second_run_changes_nothing():
    first = load(settings.CONTENT_DIR)
    before = snapshot()
    second = load(settings.CONTENT_DIR)

    assert "Content loaded." in first
    assert "[1/" in first  # progress, lesson by lesson
    assert "Nothing changed" in second
    assert snapshot() == before
    course = Course.objects.get(slug="transformers")
    assert course.lessons.count() >= 8
    assert course.glossary.count() >= 15
    block = Lesson.objects.get(slug="block-anatomy")
    assert block.access == "pro"
    accesses = list(block.sections.order_by("position").values_list("access", flat=True))
    assert accesses[0] == "free"
    assert "pro" in accesses


def test_sections_are_rendered_to_sanitized_html(tmp_path):
    body = "Hi **there**.\n\n<script>alert(1)</script>\n\n[bad](javascript:alert(1))"
    root = write_content(
        tmp_path, [lesson("one", sections=[{"slug": "s", "title": "S", "body": body}])]
    )

    load(root)

    html = Section.objects.get().body_html
    assert "<strong>there</strong>" in html
    assert "<script>" not in html
    assert 'href="javascript' not in html


def test_a_malformed_file_is_reported_with_file_and_field_and_changes_nothing(tmp_path):
    root = write_content(tmp_path, [lesson("one"), lesson("two")])
    load(root)
    before = snapshot()
    broken = lesson("two", minutes="many", title="Changed title")
    del broken["summary"]
    write_content(tmp_path, [lesson("one", title="Also changed"), broken])

    problems = load_failing(root)

    assert "courses/demo/lessons/two.yaml: lesson 'two': minutes: A valid integer is required." in (
        problems
    )
    assert "courses/demo/lessons/two.yaml: lesson 'two': summary: This field is required." in (
        problems
    )
    assert snapshot() == before


def test_bad_yaml_is_reported_with_its_line(tmp_path):
    root = write_content(tmp_path, [lesson("one")])
    (root / "courses/demo/lessons/one.yaml").write_text("slug: one\ntitle: [unclosed\n")

    problems = load_failing(root)

    assert "courses/demo/lessons/one.yaml: line" in problems
    assert "not valid YAML" in problems


@pytest.mark.parametrize(
    ("lessons", "expected"),
    [
        (
            [lesson("one", prerequisites=["ghost"])],
            "lessons/one.yaml: lesson 'one': prerequisites: unknown prerequisite 'ghost'",
        ),
        (
            [lesson("one", prerequisites=["two"]), lesson("two")],
            "lesson 'one': prerequisites: prerequisite 'two' must come earlier in the course",
        ),
        (
            [
                lesson(
                    "block",
                    access="pro",
                    sections=[
                        {"slug": "a", "title": "A", "body": "x", "access": "free"},
                        {"slug": "b", "title": "B", "body": "y", "access": "pro"},
                    ],
                ),
                lesson("after", prerequisites=["block"]),
            ],
            "lessons/after.yaml: lesson 'after': prerequisites:"
            " a free lesson cannot require the Pro lesson 'block'",
        ),
        (
            [
                lesson(
                    "one",
                    access="free",
                    sections=[{"slug": "a", "title": "A", "body": "x", "access": "pro"}],
                )
            ],
            "lessons/one.yaml: section 1 'a': access: a free lesson cannot have a pro section",
        ),
        (
            [
                lesson(
                    "one",
                    sections=[
                        {"slug": "a", "title": "A", "body": "x"},
                        {"slug": "a", "title": "B", "body": "y"},
                    ],
                )
            ],
            "lessons/one.yaml: section 2 'a': slug: duplicate slug in this lesson",
        ),
        (
            [lesson("one", sections=[{"slug": "Bad Slug", "title": "A", "body": "x"}])],
            "lessons/one.yaml: section 1 'Bad Slug': slug: Use lower-case letters",
        ),
        (
            [lesson("one", colour="blue")],
            "lessons/one.yaml: lesson 'one': colour: Unknown field.",
        ),
        (
            [lesson("one", access="premium")],
            "lessons/one.yaml: lesson 'one': access: \"premium\" is not a valid choice.",
        ),
    ],
    ids=[
        "unknown-prereq",
        "later-prereq",
        "pro-prereq-of-free",
        "pro-in-free",
        "dup-section",
        "bad-slug",
        "unknown",
        "choice",
    ],
)
def test_each_problem_names_file_item_and_field(tmp_path, lessons, expected):
    root = write_content(tmp_path, lessons)

    assert expected in load_failing(root)
    assert Course.objects.count() == 0


def test_a_lesson_slug_used_by_two_courses_is_refused(tmp_path):
    root = write_content(tmp_path, [lesson("shared")])
    shutil.copytree(root / "courses/demo", root / "courses/other")
    course = yaml.safe_load((root / "courses/other/course.yaml").read_text())
    (root / "courses/other/course.yaml").write_text(yaml.safe_dump({**course, "slug": "other"}))

    assert "lesson 'shared': slug: duplicate slug" in load_failing(root)


def test_a_glossary_term_must_name_a_known_lesson(tmp_path):
    root = write_content(
        tmp_path,
        [lesson("one")],
        glossary=[{"slug": "mlp", "term": "MLP", "definition": "x", "lesson": "nope"}],
    )

    assert "glossary.yaml: term 1 'mlp': lesson: unknown lesson 'nope'" in load_failing(root)


def test_changes_are_upserted_by_slug_and_removals_archived(tmp_path):
    root = write_content(
        tmp_path,
        [lesson("one"), lesson("two")],
        glossary=[{"slug": "mlp", "term": "MLP", "definition": "Two layers.", "lesson": "two"}],
    )
    load(root)
    two = Lesson.objects.get(slug="two")
    user = UserFactory()
    LessonProgress.objects.create(user=user, lesson=two)

    write_content(tmp_path, [lesson("one", title="Renamed")], glossary=[])
    output = load(root)

    assert Lesson.objects.get(slug="one").title == "Renamed"
    two.refresh_from_db()
    assert two.archived_at is not None
    assert LessonProgress.objects.filter(user=user, lesson=two).exists()
    assert GlossaryTerm.objects.get(slug="mlp").archived_at is not None
    assert "lessons: 1 updated, 1 archived" in output

    write_content(tmp_path, [lesson("one", title="Renamed"), lesson("two")])
    load(root)
    two.refresh_from_db()
    assert two.archived_at is None
    assert Lesson.objects.filter(slug="two").count() == 1


def test_reordering_lessons_renumbers_them(tmp_path):
    root = write_content(tmp_path, [lesson("one"), lesson("two")])
    load(root)

    write_content(tmp_path, [lesson("two"), lesson("one")])
    load(root)

    assert list(Lesson.objects.order_by("number").values_list("slug", flat=True)) == ["two", "one"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("::: lab toy-mlp token=lebron", "line 3: lab 'toy-mlp': token: Select a valid choice."),
        ("::: lab toy-mlp tokn=jordan", "line 3: lab 'toy-mlp': 'tokn' is not one of its inputs"),
        ("::: lab toy-mlp token", "line 3: lab 'toy-mlp': 'token' is not name=value"),
        ("::: lab and-gate bias=9", "line 3: lab 'and-gate': bias: Ensure this value is less"),
        ("::: lab parameters preset=gpt-9", "line 3: lab 'parameters': no such preset 'gpt-9'"),
        ("::: lab quantum", "line 3: unknown lab 'quantum'; the labs are dot-product, toy-mlp"),
        ("::: diagram octopus", "line 3: unknown diagram 'octopus'; the diagrams are"),
        ("::: diagram pre-norm-block x=1", "line 3: a diagram takes no state"),
        ("::: video intro", "line 3: '::: video' places nothing"),
    ],
)
def test_a_lab_or_diagram_the_site_cannot_show_is_refused_naming_its_line(tmp_path, line, message):
    body = f"First a paragraph.\n\n{line}\n"
    root = write_content(tmp_path, [lesson("one", sections=[
        {"slug": "first", "title": "First", "body": body}])])  # fmt: skip

    err = load_failing(root)

    assert "lessons/one.yaml: section 1 'first': body: " + message in err
    assert not Lesson.objects.filter(slug="one").exists()


def test_a_lab_left_partly_unsaid_starts_from_its_starting_state(tmp_path):
    body = "::: lab toy-mlp token=michael-phelps\n\n::: lab parameters d_model=1024\n"
    root = write_content(tmp_path, [lesson("one", sections=[
        {"slug": "first", "title": "First", "body": body}])])  # fmt: skip

    assert "Content loaded." in load(root)
