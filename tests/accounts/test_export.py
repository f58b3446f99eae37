"""GET /api/v1/me/export/ holds everything the service keeps about the caller."""

from datetime import date, timedelta

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts import exports, services
from accounts.models import Notification
from course.models import LessonProgress, Report
from reviews import mocks
from reviews.models import CodeSubmission, Deck
from tests.factories import (
    BankQuestionFactory,
    ClassroomFactory,
    CodeQuestionFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


def models_pointing_at_a_user() -> set[str]:
    user_model = get_user_model()
    return {
        model._meta.label
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if field.concrete and field.is_relation and field.related_model is user_model
    }


def test_every_model_that_points_at_a_user_is_exported_or_says_why():
    covered = set(exports.exported_models())
    left_out = set(exports.NOT_EXPORTED)

    assert models_pointing_at_a_user() - covered - left_out == set()
    assert covered & left_out == set()
    assert left_out <= models_pointing_at_a_user()
    assert all(len(reason) > 40 for reason in exports.NOT_EXPORTED.values())


def test_the_export_holds_one_of_everything_held_about_the_user(api):
    user = UserFactory()
    key = api.authenticate(user)
    question = QuestionFactory()
    answered = api.post(
        f"/api/v1/questions/{question.pk}/answers/",
        {"response": "8e6"},
        headers={"Idempotency-Key": "kept-response-1"},
    )
    assert answered.status_code == 201, answered.text
    revealed = api.post(f"/api/v1/questions/{question.pk}/reveal/", {})
    assert revealed.status_code == 201, revealed.text
    interview = BankQuestionFactory()
    practised = api.post(
        f"/api/v1/interview/questions/{interview.key}/practice/",
        {"covered_key_points": [2, 0], "response": "Attention, then the MLP."},
    )
    assert practised.status_code == 201, practised.text
    mocks.mock_start(user=user, categories=[], level="", length=3, now=timezone.now())
    coding = CodeQuestionFactory()
    CodeSubmission.objects.create(
        user=user, question=coding, run="examples", source="def softmax(x): ...", seed=1
    )
    user.scheduler_parameters = [0.4, 1.2, 3.1]  # stand-ins for a fit: kept as they are
    user.scheduler_fitted_at = timezone.now() - timedelta(days=2)
    user.scheduler_checked_at = timezone.now() - timedelta(days=1)
    user.scheduler_rederived_at = user.scheduler_fitted_at
    user.easy_answer_ms = 4_000
    user.retention_raise = 0.0125
    user.reminded_on = date(2026, 3, 4)
    user.save()
    Deck.objects.create(
        user=user, revision=3, questions_through=question.pk, built_at=timezone.now()
    )
    LessonProgress.objects.create(user=user, lesson=question.lesson, completed_at=timezone.now())
    Report.objects.create(user=user, lesson=question.lesson, message="A typo.")
    services.notification_create(
        user_id=user.pk, kind=Notification.Kind.REMINDER, key="r-1", title="Due", body="3 due."
    )
    ClassroomFactory(teacher=user)
    MembershipFactory(user=user)

    response = api.get("/api/v1/me/export/")

    body = response.json()
    assert response.status_code == 200
    assert set(exports.sections()) <= set(body)
    assert [name for name in exports.sections() if not body[name]] == []
    assert body["profile"]["scheduler"] == {
        "parameters": [0.4, 1.2, 3.1],
        "fitted_at": user.scheduler_fitted_at.isoformat(),
        "checked_at": user.scheduler_checked_at.isoformat(),
        "rederived_at": user.scheduler_fitted_at.isoformat(),
        "easy_answer_ms": 4_000,
        "retention_raise": 0.0125,
    }
    assert body["profile"]["reminders"] == {
        "reminder_hour": 18,
        "email_reminders": True,
        "reminded_on": "2026-03-04",
    }
    assert body["stored_responses"][0]["key"] == "kept-response-1"
    assert body["stored_responses"][0]["status_code"] == 201
    assert body["stored_responses"][0]["response"]["status"] == "correct"
    assert body["deck"]["revision"] == 3
    assert [a["covered_key_points"] for a in body["answers"]] == [None, [0, 2]]
    assert body["code_submissions"][0]["source"] == "def softmax(x): ..."
    assert body["mock_interviews"][0]["questions"] == [
        {"position": 1, "question": interview.key, "shown_at": None, "answered_at": None}
    ]
    assert [set(token) for token in body["tokens"]] == [{"created", "expiry"}]
    assert key not in response.text
    assert key[:8] not in response.text


def test_the_profile_holds_every_field_of_the_user_but_its_password(api):
    user = UserFactory()
    api.authenticate(user)

    profile = api.get("/api/v1/me/export/").json()["profile"]

    def paths(value, prefix=""):
        if not isinstance(value, dict):
            return {prefix}
        return set().union(*(paths(v, f"{prefix}_{k}" if prefix else k) for k, v in value.items()))

    flat = paths(profile)
    names = (
        flat
        | {path.rsplit("_", 1)[-1] for path in flat}
        | {path.split("_", 1)[1] for path in flat if "_" in path}
    )
    fields = {field.name for field in get_user_model()._meta.get_fields() if field.concrete}
    assert fields - names == {"password"}
    assert user.password not in str(profile)
