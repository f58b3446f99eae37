"""Staff see classrooms, memberships and assignments in the admin."""

import pytest
from django.urls import reverse

from tests.factories import AssignmentFactory, MembershipFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(admin_client):
    admin_client.defaults["HTTP_X_FORWARDED_PROTO"] = "https"
    return admin_client


@pytest.mark.parametrize("model", ["classroom", "membership", "assignment"])
def test_every_classroom_list_opens_and_shows_its_rows(staff, model):
    membership = MembershipFactory(user__username="listed-learner")
    AssignmentFactory(classroom=membership.classroom, title="Listed homework")

    response = staff.get(reverse(f"admin:classrooms_{model}_changelist"))

    assert response.status_code == 200
    shown = {"classroom": membership.classroom.name, "membership": "listed-learner"}
    assert shown.get(model, "Listed homework") in response.content.decode()


def test_a_classroom_opens_with_its_members_and_assignments(staff):
    membership = MembershipFactory(user__username="inline-learner")
    AssignmentFactory(classroom=membership.classroom, title="Inline homework")

    response = staff.get(
        reverse("admin:classrooms_classroom_change", args=[membership.classroom.pk])
    )

    assert response.status_code == 200
    page = response.content.decode()
    assert membership.classroom.join_code in page
    assert "Inline homework" in page
