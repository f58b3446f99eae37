"""The content revision changes with every change to the content, by any path, and only
then; what pages keep for a revision is rebuilt when it changes; a lesson page never shows
content older than the content it was asked for."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import transaction
from django.middleware.csrf import _unmask_cipher_token
from django.utils import timezone

from accounts.models import User
from course import revisions
from course.models import ContentRevision, GlossaryTerm, LessonProgress, Section
from quizzes.models import Choice, Question
from tests.course.test_load_content import lesson as lesson_file
from tests.course.test_load_content import write_content
from tests.factories import (
    ChoiceFactory,
    CourseFactory,
    GlossaryTermFactory,
    LessonFactory,
    QuestionFactory,
    SectionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def changes(action) -> bool:
    before = revisions.current()
    action()
    return revisions.current() != before


@pytest.fixture
def content():
    lesson = LessonFactory()
    section = SectionFactory(lesson=lesson, body_markdown="The first words.")
    term = GlossaryTermFactory(course=lesson.course, lesson=lesson)
    question = QuestionFactory(
        lesson=lesson, section=section, kind=Question.Kind.SINGLE_CHOICE, answer=None, mistakes=[]
    )
    choice = ChoiceFactory(question=question)
    return lesson, section, term, choice


def test_every_content_model_saved_or_deleted_changes_the_revision(content):
    lesson, section, term, choice = content
    question = choice.question
    assert changes(lambda: CourseFactory())
    for row in (lesson.course, lesson, section, term, question, choice):
        assert changes(row.save), type(row).__name__
    assert changes(lambda: lesson.prerequisites.add(LessonFactory(course=lesson.course)))
    assert changes(lesson.prerequisites.clear)
    assert changes(choice.delete)
    assert changes(term.delete)


def test_what_is_not_content_leaves_the_revision_alone(content):
    lesson = content[0]
    learner = UserFactory()
    assert not changes(lambda: LessonProgress.objects.create(user=learner, lesson=lesson))
    assert not changes(lambda: User.objects.filter(pk=learner.pk).update(timezone="UTC"))


def test_a_change_rolled_back_takes_its_stamp_with_it(content):
    section = content[1]
    before = revisions.current()
    inside = []

    def change_then_fail() -> None:
        with transaction.atomic():
            section.save()
            inside.append(revisions.current())  # this transaction sees its own change
            raise RuntimeError

    with pytest.raises(RuntimeError):
        change_then_fail()
    assert inside[0] != before
    assert revisions.current() == before


def test_loading_content_changes_the_revision_once_and_a_failed_load_not_at_all(
    tmp_path, django_assert_num_queries
):
    root = write_content(tmp_path, [lesson_file("one"), lesson_file("two")])
    stamps = []
    original = revisions._bump

    def counted() -> None:
        original()
        stamps.append(revisions.current())

    revisions._bump, before = counted, revisions.current()
    try:
        call_command("load_content", str(root), stdout=StringIO())
        assert len(stamps) == 1, "one change for the whole load, however many rows"
        assert revisions.current() != before
        # A second load with nothing new still says the content may have changed.
        call_command("load_content", str(root), stdout=StringIO())
        assert len(stamps) == 2
        after = revisions.current()
        (tmp_path / "courses" / "demo" / "course.yaml").write_text("slug: [")
        with pytest.raises(CommandError):
            call_command("load_content", str(root), stdout=StringIO(), stderr=StringIO())
        assert revisions.current() == after
    finally:
        revisions._bump = original


def test_the_revision_row_is_made_if_it_is_missing(content):
    ContentRevision.objects.all().delete()
    assert revisions.current() == 0
    content[1].save()
    assert ContentRevision.objects.get().stamp == revisions.current() != 0


def test_kept_values_last_for_one_revision():
    kept: revisions.Kept[list[int]] = revisions.Kept(size=2)
    built = []

    def build(n: int):
        def make() -> list[int]:
            built.append(n)
            return [n]

        return make

    assert kept.get("a", 1, build(1)) == [1]
    assert kept.get("a", 1, build(2)) == [1]
    assert kept.get("a", 7, build(3)) == [3], "another revision rebuilds"
    assert kept.get("a", 1, build(4)) == [4], "whichever way the stamp moves"
    kept.get("b", 1, build(5))
    kept.get("c", 1, build(6))
    assert len(kept) == 2
    assert built == [1, 3, 4, 5, 6]
    revisions.forget_kept()
    assert kept.get("c", 1, build(7)) == [7], "nothing kept survives forgetting"


def test_kept_values_are_built_together_only_for_the_keys_not_kept():
    kept: revisions.Kept[str] = revisions.Kept(size=8)
    asked = []

    def build(missing):
        asked.append(sorted(missing))
        return {key: key.upper() for key in missing if key != "gone"}

    assert kept.get_many(["a", "b"], 1, build) == {"a": "A", "b": "B"}
    assert kept.get_many(["b", "c", "gone", "c"], 1, build) == {"b": "B", "c": "C"}
    assert kept.get_many(["a", "b", "c"], 1, build) == {"a": "A", "b": "B", "c": "C"}
    assert kept.get_many(["a"], 2, build) == {"a": "A"}, "another revision rebuilds"
    assert asked == [["a", "b"], ["c", "gone"], ["a"]]
    assert kept.get("b", 2, lambda: "rebuilt") == "rebuilt", "the old revision's are dropped"


# --- the lesson page keeps its body for a revision ----------------------------------------


def get(client, path):
    response = client.get(path, secure=True)
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def test_an_edited_section_shows_at_once(client, content):
    lesson, section, _, _ = content
    path = f"/courses/{lesson.course.slug}/{lesson.slug}/"
    assert "The first words." in get(client, path)
    Section.objects.get(pk=section.pk).save()  # the admin saves the row: same words
    section.body_html = "<p>Words written since.</p>"
    section.save()
    html = get(client, path)
    assert "Words written since." in html
    assert "The first words." not in html


def test_an_edited_glossary_definition_and_question_show_at_once(client, content):
    lesson, section, term, choice = content
    section.body_html = f"<p>About the {term.term}.</p>"
    section.save()
    path = f"/courses/{lesson.course.slug}/{lesson.slug}/"
    get(client, path)
    GlossaryTerm.objects.filter(pk=term.pk).update(definition_html="<p>Not yet seen.</p>")
    term.refresh_from_db()
    term.save()  # as the admin saves it
    question = Question.objects.get(pk=choice.question_id)
    question.prompt_html = "<p>A prompt written since.</p>"
    question.save()
    html = get(client, path)
    assert "Not yet seen." in html
    assert "A prompt written since." in html


def test_readers_with_other_progress_or_plan_see_their_own(client, content):
    lesson = content[0]
    path = f"/courses/{lesson.course.slug}/{lesson.slug}/"
    done, fresh = UserFactory(), UserFactory()
    LessonProgress.objects.create(user=done, lesson=lesson, completed_at=timezone.now())
    client.force_login(done)
    assert "You completed this lesson." in get(client, path)
    client.force_login(fresh)
    html = get(client, path)
    assert "You completed this lesson." not in html
    assert "Mark complete" in html
    client.logout()
    assert "to keep track of the lessons you finish" in get(client, path)


def test_every_form_of_a_kept_body_carries_this_browsers_csrf_token(client, content):
    lesson = content[0]
    client.force_login(UserFactory())
    path = f"/courses/{lesson.course.slug}/{lesson.slug}/"
    for _ in range(2):  # rendered, then kept
        html = get(client, path)
        tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert len(tokens) >= 3, "sign out, the check question, mark complete"
        secret = client.cookies[settings.CSRF_COOKIE_NAME].value
        assert {_unmask_cipher_token(token) for token in tokens} == {secret}
        assert not re.search(r"m[0-9a-f]{24}-", html), "no marker is left in the page"


def test_a_choice_edited_through_its_question_shows_at_once(client, content):
    lesson, _, _, choice = content
    client.force_login(UserFactory())
    path = f"/courses/{lesson.course.slug}/{lesson.slug}/"
    get(client, path)
    Choice.objects.filter(pk=choice.pk).update(text_html="<p>Words of a new choice</p>")
    choice.refresh_from_db()
    choice.save()
    assert "Words of a new choice" in get(client, path)
