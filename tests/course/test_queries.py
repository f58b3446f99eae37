"""Hot reads use a fixed number of SQL queries, however much content there is."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from course.models import Access
from tests.factories import (
    CourseFactory,
    GlossaryTermFactory,
    LessonFactory,
    SectionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def build_lesson(sections: int) -> str:
    course = CourseFactory()
    before = LessonFactory(course=course, number=1)
    lesson = LessonFactory(course=course, number=2, access=Access.PRO)
    LessonFactory(course=course, number=3)
    lesson.prerequisites.add(before)
    for position in range(1, sections + 1):
        SectionFactory(
            lesson=lesson, position=position, access=Access.FREE if position == 1 else Access.PRO
        )
        GlossaryTermFactory(course=course, lesson=lesson)
    return lesson.slug


def queries_for(client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, secure=True)
    assert response.status_code == 200, response.content
    return [q["sql"] for q in queries.captured_queries]


@pytest.mark.parametrize("plan", [User.Plan.FREE, User.Plan.PRO])
def test_lesson_detail_costs_the_same_for_3_sections_as_for_30(client, plan):
    client.force_login(UserFactory(plan=plan))
    small, large = (f"/api/v1/lessons/{build_lesson(n)}/" for n in (3, 30))
    first = [queries_for(client, path) for path in (small, large)]
    again = [queries_for(client, path) for path in (small, large)]

    # The first read since the content changed: session + user, the content revision,
    # lesson, sections, prerequisites, terms, previous, next, question ids, progress.
    assert [len(q) for q in first] == [11, 11], "\n".join(first[1])
    # Then the page's content is kept for the revision: session + user, revision, progress.
    assert [len(q) for q in again] == [4, 4], "\n".join(again[1])


def test_anonymous_lesson_detail_skips_the_progress_query(client):
    small, large = (f"/api/v1/lessons/{build_lesson(n)}/" for n in (3, 30))
    first = [queries_for(client, path) for path in (small, large)]
    again = [queries_for(client, path) for path in (small, large)]

    # No session, no progress; and when the content last changed (Last-Modified, sent to
    # anonymous callers only).
    assert [len(q) for q in first] == [9, 9], "\n".join(first[1])
    assert [len(q) for q in again] == [2, 2], "\n".join(again[1])


def test_course_detail_costs_the_same_for_3_lessons_as_for_30(client):
    client.force_login(UserFactory())
    counts = []
    for lessons in (3, 30):
        course = CourseFactory()
        for number in range(1, lessons + 1):
            LessonFactory(course=course, number=number)
        counts.append(len(queries_for(client, f"/api/v1/courses/{course.slug}/")))

    # session + user, course, lessons, progress
    assert counts == [5, 5]


def test_glossary_page_costs_the_same_for_3_terms_as_for_60(client):
    counts = []
    for terms in (3, 60):
        course = CourseFactory()
        lesson = LessonFactory(course=course)
        GlossaryTermFactory.create_batch(terms, course=course, lesson=lesson)
        counts.append(len(queries_for(client, f"/api/v1/glossary/?course={course.slug}")))

    # count, page, when the content last changed (Last-Modified)
    assert counts == [3, 3]
