"""Staff edit the course and the question bank in the admin."""

import pytest
from django.urls import reverse

from accounts.models import Notification
from tests.factories import ChoiceFactory, SectionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(admin_client):
    admin_client.defaults["HTTP_X_FORWARDED_PROTO"] = "https"
    return admin_client


@pytest.mark.parametrize(
    "model", ["course_course", "course_lesson", "course_glossaryterm", "quizzes_question"]
)
def test_every_content_list_opens(staff, model):
    assert staff.get(reverse(f"admin:{model}_changelist")).status_code == 200


def test_editing_a_sections_markdown_renders_its_html(staff):
    section = SectionFactory(body_markdown="old")
    lesson = section.lesson
    url = reverse("admin:course_lesson_change", args=[lesson.pk])
    form = {
        "course": lesson.course_id,
        "slug": lesson.slug,
        "number": lesson.number,
        "title": lesson.title,
        "summary": lesson.summary,
        "minutes": lesson.minutes,
        "access": lesson.access,
        "takeaways": "[]",
        "sources": "[]",
        "sections-TOTAL_FORMS": 1,
        "sections-INITIAL_FORMS": 1,
        "sections-0-id": section.pk,
        "sections-0-lesson": lesson.pk,
        "sections-0-position": 1,
        "sections-0-slug": section.slug,
        "sections-0-title": section.title,
        "sections-0-access": "free",
        "sections-0-body_markdown": "Now **bold**.",
    }

    response = staff.post(url, form)

    assert response.status_code == 302, response.content[:2000]
    section.refresh_from_db()
    assert section.body_html == "<p>Now <strong>bold</strong>.</p>\n"


def test_a_question_with_choices_opens_for_editing(staff):
    choice = ChoiceFactory(is_correct=True)

    response = staff.get(reverse("admin:quizzes_question_change", args=[choice.question.pk]))

    assert response.status_code == 200
    assert choice.text_markdown.encode() in response.content


@pytest.mark.parametrize(
    "model",
    [
        "accounts_notification",
        "django_celery_beat_periodictask",
        "django_celery_beat_crontabschedule",
        "django_celery_beat_intervalschedule",
    ],
)
def test_notifications_and_beat_schedules_open(staff, model):
    Notification.objects.create(user=UserFactory(), kind="leech", key="k", title="T", body="B")
    assert staff.get(reverse(f"admin:{model}_changelist")).status_code == 200
