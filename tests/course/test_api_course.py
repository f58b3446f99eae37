from datetime import datetime

import pytest

from accounts.models import User
from course.models import Access, LessonProgress, Report
from tests.conftest import assert_problem
from tests.factories import (
    CourseFactory,
    GlossaryTermFactory,
    LessonFactory,
    SectionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def course():
    """A course whose second lesson is Pro after a free first section."""
    course = CourseFactory(slug="transformers", title="How transformers work")
    intro = LessonFactory(course=course, slug="intro", number=1)
    SectionFactory(lesson=intro, slug="hello", position=1)
    block = LessonFactory(course=course, slug="block", number=2, access=Access.PRO)
    block.prerequisites.add(intro)
    SectionFactory(lesson=block, slug="free-part", position=1, access=Access.FREE)
    SectionFactory(lesson=block, slug="add-dont-replace", position=2, access=Access.PRO)
    SectionFactory(lesson=block, slug="layer-norm", position=3, access=Access.PRO)
    LessonFactory(course=course, slug="logits", number=3)
    GlossaryTermFactory(course=course, slug="mlp", term="MLP", aliases=["FFN"], lesson=block)
    return course


def test_anyone_reads_the_catalogue(api, course):
    body = api.get("/api/v1/courses/").json()

    assert body["count"] == 1
    assert body["results"] == [
        {
            "slug": "transformers",
            "title": "How transformers work",
            "summary": course.summary,
            "lesson_count": 3,
        }
    ]


def test_course_detail_marks_locked_and_completed_lessons(api, course):
    user = UserFactory()
    LessonProgress.objects.create(user=user, lesson=course.lessons.get(slug="intro"))
    LessonProgress.objects.filter(user=user).update(completed_at="2026-01-01T00:00:00Z")
    api.authenticate(user)

    lessons = api.get("/api/v1/courses/transformers/").json()["lessons"]

    assert [(x["slug"], x["number"], x["access"]) for x in lessons] == [
        ("intro", 1, "free"),
        ("block", 2, "pro"),
        ("logits", 3, "free"),
    ]
    assert [x["locked"] for x in lessons] == [False, True, False]
    assert [x["completed"] for x in lessons] == [True, False, False]


def test_a_free_user_gets_the_free_sections_and_only_titles_of_the_rest(api, course):
    api.authenticate(UserFactory(plan=User.Plan.FREE))

    body = api.get("/api/v1/lessons/block/").json()

    assert body["locked"] is True
    assert [s["slug"] for s in body["sections"]] == ["free-part", "add-dont-replace", "layer-norm"]
    free, *closed = body["sections"]
    assert free["locked"] is False
    assert free["body_html"].startswith("<p>Body of")
    assert all(s["locked"] and "body_html" not in s and s["title"] for s in closed)


def test_a_pro_user_gets_every_body(api, course):
    api.authenticate(UserFactory(plan=User.Plan.PRO))

    body = api.get("/api/v1/lessons/block/").json()

    assert body["locked"] is False
    assert all(not s["locked"] and s["body_html"] for s in body["sections"])


def test_anonymous_readers_get_free_lessons_and_free_parts(api, course):
    intro = api.get("/api/v1/lessons/intro/").json()
    block = api.get("/api/v1/lessons/block/").json()

    assert intro["sections"][0]["body_html"]
    assert [s["locked"] for s in block["sections"]] == [False, True, True]


def test_lesson_detail_links_its_neighbours_prerequisites_and_terms(api, course):
    body = api.get("/api/v1/lessons/block/").json()

    assert body["course"] == "transformers"
    assert body["prerequisites"] == ["intro"]
    assert body["previous_lesson"]["slug"] == "intro"
    assert body["next_lesson"]["slug"] == "logits"
    assert body["glossary"] == [{"slug": "mlp", "term": "MLP"}]
    assert body["takeaways"]
    assert body["sources"]
    assert body["question_ids"] == []


def test_archived_lessons_are_not_served(api, course):
    course.lessons.filter(slug="logits").update(archived_at="2026-01-01T00:00:00Z")

    assert_problem(api.get("/api/v1/lessons/logits/"), 404)
    assert api.get("/api/v1/lessons/block/").json()["next_lesson"] is None


def test_completing_a_lesson_keeps_the_first_completion_time(api, course):
    api.authenticate(UserFactory())

    first = api.post("/api/v1/lessons/intro/complete/")
    second = api.post("/api/v1/lessons/intro/complete/")

    assert first.status_code == 200, first.text
    assert first.json()["completed"] is True
    assert second.json()["completed_at"] == first.json()["completed_at"]
    assert LessonProgress.objects.count() == 1


@pytest.mark.parametrize("attempt", range(5))
def test_a_first_completion_is_never_before_the_lessons_start(api, course, attempt):
    api.authenticate(UserFactory())

    body = api.post("/api/v1/lessons/intro/complete/").json()

    started = datetime.fromisoformat(body["started_at"])
    completed = datetime.fromisoformat(body["completed_at"])
    assert started <= completed
    assert started == completed  # one request started and completed it, at one time


def test_a_free_user_cannot_complete_a_pro_lesson(api, course):
    api.authenticate(UserFactory())

    body = assert_problem(api.post("/api/v1/lessons/block/complete/"), 403)

    assert body["type"].endswith("/problems/pro-required/")


def test_completing_needs_an_account(api, course):
    assert_problem(api.post("/api/v1/lessons/intro/complete/"), 401)


def test_glossary_search_matches_terms_and_aliases(api, course):
    GlossaryTermFactory(course=course, slug="residual", term="Residual stream")

    by_alias = api.get("/api/v1/glossary/", params={"search": "ffn"}).json()
    everything = api.get("/api/v1/glossary/").json()

    assert [t["slug"] for t in by_alias["results"]] == ["mlp"]
    assert by_alias["results"][0]["lesson"] == "block"
    assert everything["count"] == 2


def test_glossary_search_is_bounded(api, course):
    assert_problem(api.get("/api/v1/glossary/", params={"search": "x" * 101}), 400, "search")


def test_page_size_is_capped_at_100(api, course):
    for _n in range(105):
        GlossaryTermFactory(course=course)

    body = api.get("/api/v1/glossary/", params={"page_size": 500}).json()

    assert len(body["results"]) == 100
    assert body["next"] is not None


def test_a_report_about_a_lesson_is_kept(api, course):
    user = UserFactory()
    api.authenticate(user)

    response = api.post("/api/v1/reports/", {"lesson": "block", "message": "GELU's minimum?"})

    assert response.status_code == 201, response.text
    assert response.json()["lesson"] == "block"
    assert Report.objects.get().user == user


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"message": "Something is off."}, "lesson"),
        ({"lesson": "nope", "message": "x"}, "lesson"),
        ({"question": 99999, "message": "x"}, "question"),
        ({"lesson": "block", "message": ""}, "message"),
        ({"lesson": "block", "message": "x" * 2001}, "message"),
    ],
)
def test_a_bad_report_names_the_field_and_writes_nothing(api, course, body, field):
    api.authenticate(UserFactory())

    assert_problem(api.post("/api/v1/reports/", body), 400, field=field)
    assert Report.objects.count() == 0
