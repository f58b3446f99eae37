"""Answers stored before answers recorded when the server received them are taken as received
when they were given."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from reviews.models import Answer

BEFORE = ("reviews", "0001_initial")
GIVEN = datetime(2026, 3, 4, 5, 6, 7, 890_123, tzinfo=UTC)


@pytest.fixture
def old_schema(transactional_db):
    """The models as they were before `received_at`; the newest schema again afterwards."""
    newest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    at_before = [node for node in newest if node[0] != "reviews"] + [BEFORE]
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([BEFORE])
        yield executor.loader.project_state(at_before).apps, newest
    finally:
        MigrationExecutor(connection).migrate(newest)


def test_an_answer_given_before_is_received_when_it_was_given(old_schema):
    apps, newest = old_schema
    user = apps.get_model("accounts", "User").objects.create(username="learner", password="!")
    course = apps.get_model("course", "Course").objects.create(slug="c", title="C", summary="S")
    lesson = apps.get_model("course", "Lesson").objects.create(
        course=course, slug="l", number=1, title="L", summary="S", minutes=5
    )
    section = apps.get_model("course", "Section").objects.create(
        lesson=lesson, slug="s", position=1, title="S", body_markdown="b", body_html="<p>b</p>"
    )
    question = apps.get_model("quizzes", "Question").objects.create(
        key="q", kind="numeric", topic="mlp", difficulty=2, lesson=lesson, section=section,
        prompt_markdown="?", prompt_html="<p>?</p>",
    )  # fmt: skip
    old = apps.get_model("reviews", "Answer").objects.create(
        user=user, question=question, question_version=1, status="correct", score=1.0,
        created_at=GIVEN,
    )  # fmt: skip

    MigrationExecutor(connection).migrate(newest)

    answer = Answer.objects.get(pk=old.pk)
    assert answer.received_at == answer.created_at == GIVEN
    assert (answer.variant_nonce, answer.notice, answer.reveal_id) == ("", "", None)
