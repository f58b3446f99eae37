"""What an app needs to keep course content in sync cheaply: conditional GETs (ETag,
Last-Modified, 304) and `?updated_since=` deltas on courses, lessons, glossary and questions."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone
from django.utils.http import http_date

from course.models import Course, Lesson
from quizzes.models import Question
from tests.conftest import assert_problem
from tests.factories import (
    GlossaryTermFactory,
    LessonFactory,
    QuestionFactory,
    SectionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

LONG_AGO = timezone.now() - timedelta(days=30)


def age_all_content() -> None:
    """Every content row last changed a month ago."""
    for model in (Course, Lesson, Question):
        model.objects.update(updated_at=LONG_AGO)


@pytest.mark.parametrize("path", ["/api/v1/courses/", "/api/v1/glossary/"])
def test_shared_lists_answer_if_none_match_and_if_modified_since_with_304(api, path):
    GlossaryTermFactory(lesson=LessonFactory())
    age_all_content()

    first = api.get(path)
    by_etag = api.get(path, headers={"If-None-Match": first.headers["ETag"]})
    by_date = api.get(path, headers={"If-Modified-Since": first.headers["Last-Modified"]})

    assert first.status_code == 200
    assert first.headers["Last-Modified"] == http_date(LONG_AGO.timestamp())
    assert {"Authorization", "Cookie"} <= {v.strip() for v in first.headers["Vary"].split(",")}
    assert first.headers["Cache-Control"] == "no-cache"
    assert (by_etag.status_code, by_etag.content) == (304, b"")
    assert by_etag.headers["ETag"] == first.headers["ETag"]
    assert by_date.status_code == 304


def test_a_content_change_gives_a_new_etag_and_a_full_answer(api):
    lesson = LessonFactory()
    age_all_content()
    first = api.get("/api/v1/courses/")

    Course.objects.filter(pk=lesson.course_id).update(title="Renamed", updated_at=timezone.now())
    again = api.get(
        "/api/v1/courses/",
        headers={
            "If-None-Match": first.headers["ETag"],
            "If-Modified-Since": first.headers["Last-Modified"],
        },
    )
    archived = LessonFactory(course=lesson.course)
    Lesson.objects.filter(pk=archived.pk).update(archived_at=timezone.now())
    count_changed = api.get("/api/v1/courses/", headers={"If-None-Match": again.headers["ETag"]})

    assert again.status_code == 200
    assert again.headers["ETag"] != first.headers["ETag"]
    assert count_changed.status_code == 304  # an archived lesson is not counted


def test_the_etag_follows_the_callers_view_of_a_lesson(api, other_api):
    lesson = LessonFactory(access="pro")
    SectionFactory(lesson=lesson, access="pro")
    path = f"/api/v1/lessons/{lesson.slug}/"
    anonymous = api.get(path)
    api.authenticate(UserFactory(plan="free"))
    free = api.get(path)
    other_api.authenticate(UserFactory(plan="pro"))
    pro = other_api.get(path)

    other_api.post(f"/api/v1/lessons/{lesson.slug}/complete/")
    completed = other_api.get(path, headers={"If-None-Match": pro.headers["ETag"]})

    assert anonymous.headers["ETag"] == free.headers["ETag"]  # both see the same locked lesson
    assert pro.headers["ETag"] != free.headers["ETag"]
    assert completed.status_code == 200
    assert completed.json()["completed"] is True
    assert completed.headers["ETag"] != pro.headers["ETag"]


def test_signed_in_callers_revalidate_by_etag_only(api):
    course = LessonFactory().course
    age_all_content()
    path = f"/api/v1/courses/{course.slug}/"
    anonymous = api.get(path)
    api.authenticate(UserFactory())

    signed_in = api.get(path)
    by_date = api.get(path, headers={"If-Modified-Since": anonymous.headers["Last-Modified"]})
    by_etag = api.get(path, headers={"If-None-Match": signed_in.headers["ETag"]})

    assert "Last-Modified" not in signed_in.headers
    assert set(signed_in.headers["Cache-Control"].split(", ")) == {"no-cache", "private"}
    assert by_date.status_code == 200
    assert by_etag.status_code == 304


def test_questions_answer_if_none_match(api):
    question = QuestionFactory()
    api.authenticate(UserFactory())

    listed = api.get("/api/v1/questions/")
    detail = api.get(f"/api/v1/questions/{question.pk}/")

    assert (
        api.get("/api/v1/questions/", headers={"If-None-Match": listed.headers["ETag"]}).status_code
        == 304
    )
    assert (
        api.get(
            f"/api/v1/questions/{question.pk}/", headers={"If-None-Match": detail.headers["ETag"]}
        ).status_code
        == 304
    )


def test_updated_since_lists_only_what_changed(api):
    unchanged_course = LessonFactory().course
    changed_lesson = LessonFactory()
    term_course = GlossaryTermFactory(lesson=LessonFactory()).course
    GlossaryTermFactory(course=unchanged_course)
    old_question, new_question = QuestionFactory(), QuestionFactory()
    age_all_content()
    since = (timezone.now() - timedelta(days=1)).astimezone(UTC).isoformat()
    Lesson.objects.filter(pk=changed_lesson.pk).update(updated_at=timezone.now())
    Course.objects.filter(pk=term_course.pk).update(updated_at=timezone.now())
    Question.objects.filter(pk=new_question.pk).update(updated_at=timezone.now())
    api.authenticate(UserFactory())

    courses = api.get("/api/v1/courses/", params={"updated_since": since}).json()["results"]
    terms = api.get("/api/v1/glossary/", params={"updated_since": since}).json()["results"]
    questions = api.get("/api/v1/questions/", params={"updated_since": since}).json()["results"]

    assert {c["slug"] for c in courses} == {changed_lesson.course.slug, term_course.slug}
    assert {t["course"] for t in terms} == {term_course.slug}
    assert [q["id"] for q in questions] == [new_question.pk]
    assert old_question.pk != new_question.pk


def test_updated_since_takes_any_offset(api):
    LessonFactory()
    age_all_content()
    in_berlin = (
        (LONG_AGO - timedelta(hours=1)).astimezone(timezone.get_fixed_timezone(120)).isoformat()
    )
    zulu = (LONG_AGO + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")

    before = api.get("/api/v1/courses/", params={"updated_since": in_berlin}).json()
    after = api.get("/api/v1/courses/", params={"updated_since": zulu}).json()

    assert (before["count"], after["count"]) == (1, 0)


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2026-05-01T12:00:00",  # no offset: ambiguous
        "2026-13-01T00:00:00Z",
        "2026-05-01T12:00:00Z\x00",
        "0001-01-01T00:00:00+05:00",  # before the first moment there is
        "9" * 500,
        "",
    ],
)
@pytest.mark.parametrize("path", ["/api/v1/courses/", "/api/v1/glossary/", "/api/v1/questions/"])
def test_a_bad_updated_since_is_a_400_naming_it(api, path, value):
    api.authenticate(UserFactory())

    assert_problem(api.get(path, params={"updated_since": value}), 400, field="updated_since")


def test_loading_content_marks_what_changed(tmp_path, settings):
    from tests.course.test_load_content import lesson as lesson_file
    from tests.course.test_load_content import load, write_content

    term = {"slug": "logit", "term": "Logit", "definition": "A score.", "aliases": []}
    root = write_content(tmp_path, [lesson_file("one"), lesson_file("two")], [term])
    load(root)
    age_all_content()

    changed_section = lesson_file(
        "two", sections=[{"slug": "first", "title": "First", "body": "New words."}]
    )
    load(write_content(tmp_path, [lesson_file("one"), changed_section], [term]))
    after_sections = {row.slug: row.updated_at for row in Lesson.objects.all()}
    course_after_sections = Course.objects.get().updated_at
    load(
        write_content(
            tmp_path,
            [lesson_file("one"), changed_section],
            [{**term, "definition": "A raw score."}],
        )
    )

    assert after_sections["one"] == LONG_AGO
    assert after_sections["two"] > LONG_AGO
    assert course_after_sections == LONG_AGO
    assert Course.objects.get().updated_at > LONG_AGO


def test_a_preflight_from_an_unlisted_origin_gets_no_cors_grant(api):
    response = api.request(
        "OPTIONS",
        "/api/v1/courses/",
        headers={"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "GET"},
    )

    assert "Access-Control-Allow-Origin" not in response.headers


def test_a_listed_origin_may_call_with_a_token_and_read_the_sync_headers(api, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example"]
    LessonFactory()

    preflight = api.request(
        "OPTIONS",
        "/api/v1/courses/",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization, if-none-match, idempotency-key",
        },
    )
    actual = api.get("/api/v1/courses/", headers={"Origin": "https://app.example"})
    other = api.get("/api/v1/courses/", headers={"Origin": "https://evil.example"})

    assert preflight.headers["Access-Control-Allow-Origin"] == "https://app.example"
    allowed = preflight.headers["Access-Control-Allow-Headers"]
    assert {"authorization", "if-none-match", "idempotency-key"} <= set(allowed.split(", "))
    assert "Access-Control-Allow-Credentials" not in preflight.headers
    assert actual.headers["Access-Control-Allow-Origin"] == "https://app.example"
    assert {"etag", "ratelimit", "retry-after"} <= set(
        actual.headers["Access-Control-Expose-Headers"].split(", ")
    )
    assert "Access-Control-Allow-Origin" not in other.headers
