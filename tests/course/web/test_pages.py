"""The course's pages over the test client: the course, a lesson (free and Pro readers), marking
it complete, reporting a mistake, and what Pro opens."""

from __future__ import annotations

import itertools
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.safestring import mark_safe

from accounts.models import User
from course.models import Access, LessonProgress, Report
from course.web import extras
from tests.factories import (
    CourseFactory,
    GlossaryTermFactory,
    LessonFactory,
    QuestionFactory,
    SectionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def get(client, path, **headers):
    return client.get(path, secure=True, headers=headers)


def post(client, path, data=None, **headers):
    return client.post(path, data or {}, secure=True, headers=headers)


def text_of(response) -> str:
    words = " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())
    return re.sub(r" ([.,;:”])", r"\1", words)


@pytest.fixture
def pro_lesson():
    """A Pro lesson: two free sections, then two Pro ones."""
    course = CourseFactory(slug="transformers", title="How transformers work")
    LessonFactory(course=course, number=1, slug="neurons", title="Neurons")
    lesson = LessonFactory(
        course=course, number=2, slug="block-anatomy", title="Block anatomy", access=Access.PRO
    )
    for position, access in enumerate([Access.FREE, Access.FREE, Access.PRO, Access.PRO], 1):
        SectionFactory(
            lesson=lesson,
            position=position,
            slug=f"part-{position}",
            title=f"Part {position} title",
            access=access,
            body_markdown=f"Body of part {position} ({access}) about the MLP.",
        )
    return lesson


# --- the course ---------------------------------------------------------------------------


def test_the_course_lists_its_lessons_in_order_with_progress_and_pro_marks(client, pro_lesson):
    learner = UserFactory()
    first = pro_lesson.course.lessons.get(number=1)
    pro_lesson.prerequisites.add(first)
    LessonProgress.objects.create(user=learner, lesson=first, completed_at=timezone.now())
    client.force_login(learner)

    response = get(client, "/courses/transformers/")
    text = text_of(response)

    assert response.status_code == 200
    assert text.index("Neurons") < text.index("Block anatomy")
    assert "1 of 2 lessons done" in text
    assert '<progress max="2" value="1"' in response.content.decode()
    assert "Done" in text
    assert "Pro" in text
    assert "The first 2 sections are free to read; 2 more sections open with Pro." in text
    assert "Builds on lesson 1, Neurons." in text
    assert 'href="/plans/"' in response.content.decode()


def test_a_pro_learner_sees_no_explanation_of_what_pro_opens(client, pro_lesson):
    client.force_login(UserFactory(plan=User.Plan.PRO))

    text = text_of(get(client, "/courses/transformers/"))

    assert "open with Pro" not in text
    assert "What Pro opens" not in text


def test_a_visitor_sees_the_lessons_without_progress(client, pro_lesson):
    response = get(client, "/courses/transformers/")

    assert response.status_code == 200
    assert "<progress" not in response.content.decode()
    assert 'href="/courses/transformers/block-anatomy/"' in response.content.decode()


def test_an_unknown_course_is_the_404_page(client):
    response = get(client, "/courses/nothing-here/")

    assert response.status_code == 404
    assert "Page not found" in text_of(response)


def test_the_course_page_costs_the_same_for_3_lessons_as_for_30(client):
    learner = UserFactory()
    client.force_login(learner)

    def queries_for(lessons: int) -> int:
        course = CourseFactory()
        made = [LessonFactory(course=course, number=n) for n in range(1, lessons + 1)]
        for lesson in made:
            SectionFactory(lesson=lesson)
            LessonProgress.objects.create(user=learner, lesson=lesson, completed_at=timezone.now())
        for before, after in itertools.pairwise(made):
            after.prerequisites.add(before)
        with CaptureQueriesContext(connection) as queries:
            assert get(client, f"/courses/{course.slug}/").status_code == 200
        return len(queries)

    assert queries_for(3) == queries_for(30)


# --- a lesson -----------------------------------------------------------------------------


def test_a_visitor_reads_a_free_lesson(client):
    lesson = LessonFactory(course__slug="c", slug="neurons", title="Neurons")
    SectionFactory(lesson=lesson, title="What a neuron does", body_markdown="It **adds** inputs.")

    response = get(client, "/courses/c/neurons/")
    html = response.content.decode()

    assert response.status_code == 200
    assert "<h1" in html
    assert "Neurons" in html
    assert "What a neuron does" in html
    assert "It <strong>adds</strong> inputs." in html
    assert "Mark complete" not in html
    assert "/login/?next=/courses/c/neurons/" in html


def test_a_free_learner_in_a_pro_lesson_gets_the_free_sections_and_the_panel_only(
    client, pro_lesson
):
    client.force_login(UserFactory())

    response = get(client, "/courses/transformers/block-anatomy/")
    html = response.content.decode()
    text = text_of(response)

    assert response.status_code == 200
    assert "Body of part 1 (free)" in html
    assert "Body of part 2 (free)" in html
    assert "(pro)" not in html, "no Pro body reaches a free learner"
    assert "The rest of this lesson is part of Pro" in text
    assert "Part 3 title" in text
    assert "Part 4 title" in text
    assert 'href="/plans/"' in html
    assert text.index("Body of part 2") < text.index("The rest of this lesson")
    assert "Mark complete" not in text


def test_a_visitor_in_a_pro_lesson_gets_the_same_free_part(client, pro_lesson):
    html = get(client, "/courses/transformers/block-anatomy/").content.decode()

    assert "Body of part 1 (free)" in html
    assert "(pro)" not in html
    assert "The rest of this lesson is part of Pro" in html


def test_a_pro_learner_reads_every_section_and_no_panel(client, pro_lesson):
    client.force_login(UserFactory(plan=User.Plan.PRO))

    response = get(client, "/courses/transformers/block-anatomy/")
    text = text_of(response)

    assert "Body of part 3 (pro)" in text
    assert "Body of part 4 (pro)" in text
    assert "The rest of this lesson is part of Pro" not in text
    assert "Mark complete" in text


def test_a_long_lesson_opens_with_its_contents_linking_to_each_section(client, pro_lesson):
    client.force_login(UserFactory(plan=User.Plan.PRO))

    html = get(client, "/courses/transformers/block-anatomy/").content.decode()

    assert "In this lesson" in html
    for position in range(1, 5):
        assert f'<a href="#part-{position}">Part {position} title</a>' in html
        assert f'id="part-{position}"' in html


def test_every_section_offers_a_report_link_naming_it(client, pro_lesson):
    client.force_login(UserFactory())

    html = get(client, "/courses/transformers/block-anatomy/").content.decode()

    assert 'href="/courses/transformers/block-anatomy/report/?section=part-1"' in html
    assert 'href="/courses/transformers/block-anatomy/report/?section=part-2"' in html
    assert "section=part-3" not in html


def test_glossary_terms_link_to_a_popover_card_and_a_list_at_the_end(client, pro_lesson):
    GlossaryTermFactory(
        course=pro_lesson.course,
        slug="mlp",
        term="MLP",
        aliases=["multilayer perceptron"],
        definition_markdown="Two dense layers with an activation between.",
    )
    GlossaryTermFactory(course=pro_lesson.course, slug="unused", term="Nowhere to be seen")

    html = get(client, "/courses/transformers/block-anatomy/").content.decode()

    assert html.count('popovertarget="term-mlp" data-glossary="#glossary-mlp">MLP</button>') == 2
    assert '<div class="term-card" id="term-mlp" popover' in html
    assert 'id="glossary-mlp"' in html
    assert html.count("Two dense layers with an activation between.") == 2
    assert "Nowhere to be seen" not in html


def test_display_formulas_are_wrapped_in_a_focusable_scrolling_region(client):
    lesson = LessonFactory(course__slug="c", slug="softmax")
    SectionFactory(lesson=lesson, body_markdown="$$\np_i = \\frac{e^{z_i}}{\\sum_j e^{z_j}}\n$$")

    html = get(client, "/courses/c/softmax/").content.decode()

    assert '<span class="formula" role="region" aria-label="Formula" tabindex="0"><math' in html


def test_section_extras_appear_after_their_own_section(client, pro_lesson, monkeypatch):
    monkeypatch.setattr(extras, "_providers", [])
    second = pro_lesson.sections.get(slug="part-2")

    def provider(request, page):
        return {second.pk: mark_safe('<div class="dummy-extra">Your turn</div>')}

    extras.register_section_extra(provider)

    text = text_of(get(client, "/courses/transformers/block-anatomy/"))

    assert text.count("Your turn") == 1
    report_second = text.index("Spotted a mistake? Report it in “Part 2 title”")
    assert text.index("Body of part 2") < text.index("Your turn") < report_second


def test_previous_and_next_lessons_close_the_page(client):
    course = CourseFactory(slug="c")
    LessonFactory(course=course, number=1, slug="one", title="First one")
    LessonFactory(course=course, number=2, slug="two", title="Second one")
    LessonFactory(course=course, number=3, slug="three", title="Third one")

    html = get(client, "/courses/c/two/").content.decode()

    assert 'href="/courses/c/one/" rel="prev"' in html
    assert 'href="/courses/c/three/" rel="next"' in html
    assert "First one" in html
    assert "Third one" in html


@pytest.mark.parametrize(
    "path", ["/courses/transformers/nothing/", "/courses/elsewhere/block-anatomy/"]
)
def test_an_unknown_lesson_or_one_of_another_course_is_the_404_page(client, pro_lesson, path):
    CourseFactory(slug="elsewhere")

    response = get(client, path)

    assert response.status_code == 404
    assert "Page not found" in text_of(response)


@pytest.mark.parametrize("plan", [User.Plan.FREE, User.Plan.PRO])
def test_the_lesson_page_costs_the_same_for_3_sections_as_for_30(client, plan):
    learner = UserFactory(plan=plan)
    client.force_login(learner)

    def queries_for(sections: int) -> int:
        course = CourseFactory()
        before = LessonFactory(course=course, number=1)
        lesson = LessonFactory(course=course, number=2, access=Access.PRO)
        LessonFactory(course=course, number=3)
        lesson.prerequisites.add(before)
        LessonProgress.objects.create(user=learner, lesson=before, completed_at=timezone.now())
        for position in range(1, sections + 1):
            section = SectionFactory(
                lesson=lesson,
                position=position,
                access=Access.FREE if position <= 2 else Access.PRO,
                body_markdown=f"Text with term {position} in it.",
            )
            GlossaryTermFactory(course=course, lesson=lesson, term=f"term {position}")
            QuestionFactory(lesson=lesson, section=section)
        with CaptureQueriesContext(connection) as queries:
            assert get(client, f"/courses/{course.slug}/{lesson.slug}/").status_code == 200
        return len(queries)

    assert queries_for(3) == queries_for(30)


# --- marking complete ---------------------------------------------------------------------


def test_marking_complete_records_it_once_and_goes_back_to_the_lesson(client):
    lesson = LessonFactory(course__slug="c", slug="neurons")
    SectionFactory(lesson=lesson)
    learner = UserFactory()
    client.force_login(learner)

    first = post(client, "/courses/c/neurons/complete/")
    completed_at = LessonProgress.objects.get(user=learner, lesson=lesson).completed_at
    again = post(client, "/courses/c/neurons/complete/")

    assert first.status_code == again.status_code == 303
    assert first["Location"] == "/courses/c/neurons/#completion"
    assert LessonProgress.objects.filter(user=learner, lesson=lesson).count() == 1
    assert LessonProgress.objects.get(user=learner, lesson=lesson).completed_at == completed_at
    assert "You completed this lesson." in text_of(get(client, "/courses/c/neurons/"))


def test_with_htmx_marking_complete_answers_with_the_button_region_only(client):
    LessonFactory(course__slug="c", slug="neurons")
    client.force_login(UserFactory())

    response = post(client, "/courses/c/neurons/complete/", HX_Request="true")
    html = response.content.decode()

    assert response.status_code == 200
    assert html.strip().startswith('<div id="completion"')
    assert "You completed this lesson." in html
    assert "<html" not in html


def test_a_visitor_who_marks_complete_is_sent_to_sign_in_first(client):
    lesson = LessonFactory(course__slug="c", slug="neurons")

    response = post(client, "/courses/c/neurons/complete/")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/courses/c/neurons/"
    assert not LessonProgress.objects.filter(lesson=lesson).exists()


def test_a_free_learner_cannot_complete_a_pro_lesson(client, pro_lesson):
    client.force_login(UserFactory())

    response = post(client, "/courses/transformers/block-anatomy/complete/")

    assert response.status_code == 403
    assert not LessonProgress.objects.exists()


def test_marking_complete_is_a_post(client):
    LessonFactory(course__slug="c", slug="neurons")
    client.force_login(UserFactory())

    assert get(client, "/courses/c/neurons/complete/").status_code == 405


# --- reporting a mistake ------------------------------------------------------------------

REPORT = "/courses/transformers/block-anatomy/report/"


def test_the_report_page_says_what_is_being_reported(client, pro_lesson):
    client.force_login(UserFactory())

    response = get(client, REPORT + "?section=part-2")
    text = text_of(response)

    assert response.status_code == 200
    assert "You are reporting: Lesson 2, “Block anatomy”, section “Part 2 title”" in text
    assert '<textarea name="message"' in response.content.decode()
    assert 'name="section" value="part-2"' in response.content.decode()


def test_a_report_is_saved_with_its_section_and_thanked_for(client, pro_lesson):
    learner = UserFactory()
    client.force_login(learner)

    response = post(client, REPORT, {"section": "part-2", "message": "The sum is 12, not 13."})

    assert response.status_code == 303
    assert response["Location"] == REPORT + "?sent=1&section=part-2"
    report = Report.objects.get(user=learner)
    assert report.lesson == pro_lesson
    assert report.message == "Section: Part 2 title (part-2)\n\nThe sum is 12, not 13."
    thanks = text_of(get(client, response["Location"]))
    assert "Thank you" in thanks
    assert "section “Part 2 title”" in thanks


def test_a_report_from_a_question_names_the_question(client, pro_lesson):
    learner = UserFactory()
    question = QuestionFactory(lesson=pro_lesson, section=pro_lesson.sections.get(slug="part-1"))
    client.force_login(learner)

    page = text_of(get(client, REPORT + f"?section=part-1&question={question.pk}"))
    post(client, REPORT, {"section": "part-1", "question": question.pk, "message": "Typo."})

    assert "the check question after it" in page
    assert Report.objects.get(user=learner).question_id == question.pk


def test_with_htmx_a_report_is_answered_with_the_thank_you_fragment(client, pro_lesson):
    client.force_login(UserFactory())

    response = post(client, REPORT, {"message": "Typo."}, HX_Request="true")
    html = response.content.decode()

    assert response.status_code == 200
    assert "Thank you" in html
    assert "<html" not in html
    assert Report.objects.count() == 1


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"message": ""}, "Write what you noticed before sending."),
        ({"message": "   "}, "Write what you noticed before sending."),
        ({"message": "a\x00b"}, "Null characters are not allowed."),
        ({"message": "x" * 1701}, "Ensure this value has at most 1700 characters"),
        ({"message": "ok", "section": "part-3"}, "That section is not part of this lesson."),
        ({"message": "ok", "section": "nope"}, "That section is not part of this lesson."),
        ({"message": "ok", "question": "999999"}, "That question is not part of this lesson."),
        ({"message": "ok", "question": "abc"}, "Enter a whole number."),
    ],
)
def test_a_bad_report_is_the_forms_error_and_saves_nothing(client, pro_lesson, data, error):
    client.force_login(UserFactory())

    response = post(client, REPORT, data)

    assert response.status_code == 200
    assert error in text_of(response)
    assert "There is a problem" in text_of(response)
    assert not Report.objects.exists()


def test_a_visitor_is_asked_to_sign_in_before_reporting(client, pro_lesson):
    response = get(client, REPORT + "?section=part-1")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=" + (
        "/courses/transformers/block-anatomy/report/%3Fsection%3Dpart-1"
    )


def test_reports_share_the_apis_rate_limit(client, pro_lesson, settings):
    client.force_login(UserFactory())
    limit = 30  # THROTTLE_REPORTS' default: 30 an hour

    answers = [post(client, REPORT, {"message": f"n{n}"}).status_code for n in range(limit + 1)]

    assert answers[:limit] == [303] * limit
    assert answers[limit] == 429


def test_reporting_on_an_unknown_lesson_is_the_404_page(client):
    client.force_login(UserFactory())

    assert get(client, "/courses/c/none/report/").status_code == 404


# --- Pro ----------------------------------------------------------------------------------


def test_plans_lists_the_pro_sections_from_the_course(client, pro_lesson):
    response = get(client, "/plans/")
    text = text_of(response)

    assert response.status_code == 200
    assert "Lesson 2: Block anatomy" in text
    assert "Part 3 title" in text
    assert "Part 4 title" in text
    assert "free to start: “Part 1 title”, “Part 2 title”" in text
    assert "How to get Pro" in text


def test_the_footer_links_to_plans(client):
    assert 'href="/plans/"' in get(client, "/plans/").content.decode()


def test_with_htmx_a_bad_report_is_answered_with_the_form_and_its_error(client, pro_lesson):
    client.force_login(UserFactory())

    response = post(client, REPORT, {"message": ""}, HX_Request="true")
    html = response.content.decode()

    assert response.status_code == 200
    assert "Write what you noticed before sending." in html
    assert "<textarea" in html
    assert "<html" not in html
