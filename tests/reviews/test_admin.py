"""Staff read learners' answers and reveals in the admin, and change none of them."""

import pytest
from django.urls import reverse

from reviews.models import Answer, Reveal
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(admin_client):
    admin_client.defaults["HTTP_X_FORWARDED_PROTO"] = "https"
    return admin_client


def test_answers_and_reveals_open_read_only(staff):
    learner, question = UserFactory(), QuestionFactory()
    reveal = Reveal.objects.create(user=learner, question=question)
    answer = Answer.objects.create(
        user=learner, question=question, question_version=1, status="correct", score=1.0,
        reveal=reveal, notice="answer_revealed",
    )  # fmt: skip

    for model, row in (("answer", answer), ("reveal", reveal)):
        assert staff.get(reverse(f"admin:reviews_{model}_changelist")).status_code == 200
        opened = staff.get(reverse(f"admin:reviews_{model}_change", args=[row.pk]))
        assert opened.status_code == 200
        assert b'type="submit" value="Save"' not in opened.content
