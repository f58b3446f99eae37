"""A database made before the learner's state moved to `reviews` and classrooms to `classrooms`
migrates forward with every row, key, index, constraint, content type and permission intact.

The database is taken back to the schema of the previous release (the moves unapplied, which
also shows they can be), filled through that schema's own models so that every project table
holds rows, and migrated to the newest schema. Each table is then read back whole, column by
column, under its new name.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# The schema before the moves: the project's migrations of the previous release.
BEFORE = [
    ("course", "0002_classrooms"),
    ("quizzes", "0006_no_duplicate_indexes"),
    ("reviews", None),
    ("classrooms", None),
]
RENAMED = {
    "quizzes_answer": "reviews_answer",
    "quizzes_card": "reviews_card",
    "quizzes_deck": "reviews_deck",
    "quizzes_idempotencyrecord": "reviews_idempotencyrecord",
    "course_classroom": "classrooms_classroom",
    "course_membership": "classrooms_membership",
    "course_assignment": "classrooms_assignment",
}
MOVED_MODELS = {
    ("quizzes", "answer"): "reviews",
    ("quizzes", "card"): "reviews",
    ("quizzes", "deck"): "reviews",
    ("quizzes", "idempotencyrecord"): "reviews",
    ("course", "classroom"): "classrooms",
    ("course", "membership"): "classrooms",
    ("course", "assignment"): "classrooms",
}
PROJECT_APPS = ("accounts", "course", "quizzes", "reviews", "classrooms")
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _fill(apps):
    """One or more rows in every table of the project's apps, through the old models."""
    user_model = apps.get_model("accounts", "User")
    teacher = user_model.objects.create(username="teacher", password="!", email="t@example.com")
    learner = user_model.objects.create(username="learner", password="!", timezone="Asia/Tokyo")
    group = apps.get_model("auth", "Group").objects.create(name="Support")
    learner.groups.add(group)
    apps.get_model("accounts", "Notification").objects.create(
        user=learner, kind="reminder", key="reminder:2026-11-30", title="Due", body="3 cards"
    )
    # Pro's tables (newer than the moves, so made by the accounts app's newest schema).
    apps.get_model("accounts", "Grant").objects.create(
        user=learner, source="licence", reference="licence:1", starts_at=NOW, ends_at=NOW
    )
    batch = apps.get_model("accounts", "LicenceBatch").objects.create(
        name="School", days=30, expires_at=NOW, created_by=teacher
    )
    apps.get_model("accounts", "LicenceCode").objects.create(
        batch=batch, code="ABCDEFGHJKMNPQRS", redeemed_at=NOW, redeemed_by=learner
    )
    apps.get_model("accounts", "Subscription").objects.create(
        user=learner,
        stripe_subscription_id="sub_1",
        stripe_customer_id="cus_1",
        status="active",
        event_created_at=NOW,
    )
    apps.get_model("accounts", "BillingEvent").objects.create(
        event_id="evt_1", type="checkout.session.completed", created_at=NOW, payload={}
    )

    course = apps.get_model("course", "Course").objects.create(slug="c", title="C", summary="S")
    lesson_model = apps.get_model("course", "Lesson")
    first = lesson_model.objects.create(
        course=course, slug="l1", number=1, title="L1", summary="S", minutes=5
    )
    second = lesson_model.objects.create(
        course=course, slug="l2", number=2, title="L2", summary="S", minutes=5, access="pro"
    )
    second.prerequisites.add(first)
    apps.get_model("course", "Section").objects.create(
        lesson=first, slug="s", position=1, title="S", body_markdown="b", body_html="<p>b</p>"
    )
    apps.get_model("course", "GlossaryTerm").objects.create(
        course=course, slug="t", term="T", definition_markdown="d", definition_html="<p>d</p>"
    )
    apps.get_model("course", "LessonProgress").objects.create(
        user=learner, lesson=first, completed_at=NOW
    )
    apps.get_model("course", "Report").objects.create(user=learner, lesson=first, message="typo")

    question = apps.get_model("quizzes", "Question").objects.create(
        key="q", kind="single_choice", topic="mlp", difficulty=2, lesson=first,
        prompt_markdown="?", prompt_html="<p>?</p>",
    )  # fmt: skip
    choice = apps.get_model("quizzes", "Choice").objects.create(
        question=question, position=1, text_markdown="a", text_html="a", is_correct=True
    )
    apps.get_model("quizzes", "BankRevision").objects.create(pk=1, number=3)
    apps.get_model("quizzes", "Deck").objects.create(
        user=learner, revision=3, questions_through=question.pk, built_at=NOW
    )
    card = apps.get_model("quizzes", "Card").objects.create(
        user=learner, question=question, state="review", stability=3.2, difficulty=5.1,
        due=NOW + timedelta(days=3), last_review=NOW, reps=1, seed=42, lesson_number=1,
    )  # fmt: skip
    apps.get_model("quizzes", "Answer").objects.create(
        user=learner, question=question, question_version=1, choice_ids=[choice.pk],
        status="correct", score=1.0, card=card, rating=3, card_before={"state": "new"},
        card_after={"state": "review"}, client_id="7d4f8c2e-1b9a-4e6f-9c3d-2a5b8e1f0c47",
        created_at=NOW,
    )  # fmt: skip
    apps.get_model("quizzes", "Answer").objects.create(
        user=learner, question=question, question_version=1, mode="practice",
        choice_ids=[choice.pk], status="correct", score=1.0, created_at=NOW,
    )  # fmt: skip
    apps.get_model("quizzes", "IdempotencyRecord").objects.create(
        user=learner, key="k", fingerprint="f" * 64, status_code=201, body={"answer_id": 1}
    )

    classroom = apps.get_model("course", "Classroom").objects.create(
        name="Class", course=course, teacher=teacher, join_code="ABCDEFGHJK"
    )
    apps.get_model("course", "Membership").objects.create(classroom=classroom, user=learner)
    apps.get_model("course", "Assignment").objects.create(
        classroom=classroom, title="Read", lesson=first, question_ids=[question.pk], due_at=NOW
    )

    # Content types and permissions as Django keeps them, with a grant on two moved models.
    content_type = apps.get_model("contenttypes", "ContentType")
    permission = apps.get_model("auth", "Permission")
    for app_label, model in MOVED_MODELS:
        kind, _ = content_type.objects.get_or_create(app_label=app_label, model=model)
        for action in ("add", "change", "delete", "view"):
            permission.objects.get_or_create(
                content_type=kind, codename=f"{action}_{model}", defaults={"name": action}
            )
    group.permissions.add(
        permission.objects.get(codename="view_answer"),
        permission.objects.get(codename="change_classroom"),
    )
    teacher.user_permissions.add(permission.objects.get(codename="view_card"))


def _tables():
    with connection.cursor() as cursor:
        return sorted(connection.introspection.table_names(cursor))


def _columns(table):
    with connection.cursor() as cursor:
        return [c.name for c in connection.introspection.get_table_description(cursor, table)]


def _rows(table, columns):
    """The table's rows, read through the columns it had before (later migrations add more)."""
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {names} FROM {connection.ops.quote_name(table)} ORDER BY 1")
        return cursor.fetchall()


def _columns(table):
    with connection.cursor() as cursor:
        return [c.name for c in connection.introspection.get_table_description(cursor, table)]


def _constraints(table):
    with connection.cursor() as cursor:
        return connection.introspection.get_constraints(cursor, table)


@pytest.fixture
def migrated(transactional_db):
    """The rows of every table before the moves, and the newest schema's models after them."""
    newest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    moved_apps = {app for app, _ in BEFORE}
    at_before = [node for node in newest if node[0] not in moved_apps] + [
        node for node in BEFORE if node[1]
    ]
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(BEFORE)
        _fill(executor.loader.project_state(at_before).apps)
        before = {
            table: (columns := _columns(table), _rows(table, columns))
            for table in _tables()
            if table not in {"django_migrations", "django_content_type"}
        }
        executor = MigrationExecutor(connection)
        executor.migrate(newest)
        yield before, executor.loader.project_state(newest).apps
    finally:
        MigrationExecutor(connection).migrate(newest)  # whatever happened, as the suite needs it


def test_every_project_table_held_rows_before_the_move(migrated):
    before, _ = migrated

    project = [table for table in before if table.startswith(PROJECT_APPS)]

    assert set(RENAMED) <= set(project)
    assert [table for table in project if not before[table][1]] == []


def test_every_row_of_every_table_is_there_after_the_move(migrated):
    before, _ = migrated

    after = {RENAMED.get(table, table): read for table, read in before.items()}

    assert not set(RENAMED) & set(_tables())
    assert {table: (columns, _rows(table, columns)) for table, (columns, _) in after.items()} == (
        after
    )


def test_keys_indexes_and_constraints_follow_the_tables(migrated):
    _, apps = migrated

    answer = apps.get_model("reviews", "Answer").objects.select_related("card", "question")
    reviewed = answer.get(mode="review")
    classroom = apps.get_model("classrooms", "Classroom").objects.get()
    answers = _constraints("reviews_answer")
    cards = _constraints("reviews_card")

    assert reviewed.card.question == reviewed.question
    assert classroom.memberships.get().user.username == "learner"
    assert list(classroom.assignments.values_list("title", flat=True)) == ["Read"]
    assert {
        "answer_user_day", "answer_client_id_once", "answer_score_0_to_1",
        "reviews_ans_user_id_9d4f6f_idx", "reviews_ans_questio_7f94fc_idx",
    } <= set(answers)  # fmt: skip
    assert {"card_due", "card_new", "card_once_per_question"} <= set(cards)
    assert "membership_once" in _constraints("classrooms_membership")
    assert "classrooms__teacher_d08762_idx" in _constraints("classrooms_classroom")
    assert "classrooms__classro_2df28c_idx" in _constraints("classrooms_assignment")
    assert any(
        c["foreign_key"] == ("reviews_card", "id") for c in answers.values() if c["foreign_key"]
    )


def test_new_rows_take_fresh_ids_after_the_move(migrated):
    _, apps = migrated
    answer = apps.get_model("reviews", "Answer")
    first = answer.objects.get(mode="review")

    made = answer.objects.create(
        user=first.user, question=first.question, question_version=1, status="incorrect",
        score=0.0, created_at=NOW,
    )  # fmt: skip

    assert made.pk > max(answer.objects.exclude(pk=made.pk).values_list("pk", flat=True))


def test_content_types_and_granted_permissions_follow_the_models(migrated):
    _, apps = migrated
    content_type = apps.get_model("contenttypes", "ContentType")
    group = apps.get_model("auth", "Group").objects.get(name="Support")
    teacher = apps.get_model("accounts", "User").objects.get(username="teacher")

    labels = set(content_type.objects.values_list("app_label", "model"))
    granted = set(group.permissions.values_list("content_type__app_label", "codename"))
    own = set(teacher.user_permissions.values_list("content_type__app_label", "codename"))

    assert {(app, model) for (app, model) in labels if model in {m for _, m in MOVED_MODELS}} == {
        (new_app, model) for (_, model), new_app in MOVED_MODELS.items()
    }
    assert granted == {("reviews", "view_answer"), ("classrooms", "change_classroom")}
    assert own == {("reviews", "view_card")}


def test_a_question_from_before_sections_follows_its_lessons_first_section(migrated):
    _, apps = migrated

    question = apps.get_model("quizzes", "Question").objects.select_related("section").get()

    assert (question.section.slug, question.section.access, question.unit) == ("s", "free", "")
