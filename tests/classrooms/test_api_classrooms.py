"""Classrooms over HTTP: who may see and do what, joining and leaving, and bad input."""

from datetime import timedelta

import pytest
from django.utils import timezone

from classrooms import services
from classrooms.models import JOIN_CODE_ALPHABET, Assignment, Classroom, Membership
from reviews.models import Answer
from tests.conftest import assert_problem
from tests.factories import (
    PASSWORD,
    AssignmentFactory,
    ClassroomFactory,
    CourseFactory,
    LessonFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

CALLERS = ("anonymous", "former", "stranger", "other_teacher", "member", "teacher")


@pytest.fixture
def world():
    """A classroom with a teacher, a member and a classmate; a former member; a stranger; and
    another teacher whose own classroom has a learner of its own."""
    course = CourseFactory(slug="transformers")
    lesson = LessonFactory(course=course, slug="attention")
    question = QuestionFactory(lesson=lesson)
    teacher = UserFactory(username="teacher")
    classroom = ClassroomFactory(course=course, teacher=teacher, name="Tuesday group")
    member = UserFactory(username="member")
    classmate = UserFactory(username="classmate-secret")
    MembershipFactory(classroom=classroom, user=member)
    MembershipFactory(classroom=classroom, user=classmate)
    former = UserFactory(username="former")
    MembershipFactory(classroom=classroom, user=former)
    services.classroom_leave(classroom=classroom, user=former)
    other_teacher = UserFactory(username="other-teacher")
    elsewhere = ClassroomFactory(course=course, teacher=other_teacher, name="Elsewhere")
    MembershipFactory(classroom=elsewhere, user=UserFactory(username="elsewhere-secret"))
    assignment = AssignmentFactory(classroom=classroom, lesson=lesson, question_ids=[question.pk])
    for user in (member, classmate):
        Answer.objects.create(
            user=user, question=question, question_version=1, status="correct", score=1
        )
    return {
        "classroom": classroom,
        "assignment": assignment,
        "lesson": lesson,
        "question": question,
        "teacher": teacher,
        "member": member,
        "classmate": classmate,
        "former": former,
        "stranger": UserFactory(username="stranger"),
        "other_teacher": other_teacher,
        "anonymous": None,
    }


# (method, path, body, {caller: status}); callers run in CALLERS order, so the one caller
# allowed to change something acts last.
NOT_YOURS = {"anonymous": 401, "former": 404, "stranger": 404, "other_teacher": 404}
TABLE = [
    ("get", "/", None, {**NOT_YOURS, "member": 200, "teacher": 200}),
    ("patch", "/", {"name": "Renamed"}, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("post", "/rotate-code/", None, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("get", "/members/", None, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("delete", "/members/{classmate}/", None, {**NOT_YOURS, "member": 403, "teacher": 204}),
    ("get", "/assignments/", None, {**NOT_YOURS, "member": 200, "teacher": 200}),
    (
        "post",
        "/assignments/",
        {"title": "Read it", "lesson": "attention", "due_at": "2030-01-01T00:00:00Z"},
        {**NOT_YOURS, "member": 403, "teacher": 201},
    ),
    ("get", "/assignments/{assignment}/", None, {**NOT_YOURS, "member": 200, "teacher": 200}),
    (
        "patch",
        "/assignments/{assignment}/",
        {"title": "Read it again"},
        {**NOT_YOURS, "member": 403, "teacher": 200},
    ),
    ("delete", "/assignments/{assignment}/", None, {**NOT_YOURS, "member": 403, "teacher": 204}),
    ("post", "/archive/", None, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("post", "/restore/", None, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("get", "/progress/", None, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("get", "/progress/?format=csv", None, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("get", "/items/", None, {**NOT_YOURS, "member": 403, "teacher": 200}),
    ("post", "/leave/", None, {**NOT_YOURS, "teacher": 403, "member": 204}),
    ("delete", "/", None, {**NOT_YOURS, "member": 403, "teacher": 204}),
]


@pytest.mark.parametrize(
    ("method", "suffix", "body", "expected"), TABLE, ids=[f"{m} {s}" for m, s, _, _ in TABLE]
)
def test_every_classroom_endpoint_answers_each_caller_as_the_table_says(
    api, world, method, suffix, body, expected
):
    classroom = world["classroom"]
    path = f"/api/v1/classrooms/{classroom.pk}" + suffix.format(
        classmate=world["classmate"].pk, assignment=world["assignment"].pk
    )
    order = sorted(expected, key=lambda caller: expected[caller] < 300)  # refusals first
    assert sorted(order) == sorted(CALLERS)

    for caller in order:
        api.anonymous()
        if world[caller] is not None:
            api.authenticate(world[caller])
        response = api.request(method.upper(), path, json=body)

        status = expected[caller]
        if status >= 400:
            assert_problem(response, status)
        else:
            assert response.status_code == status, (caller, response.text)
        if caller != "teacher":
            # Nobody but the teacher reads a classmate's name, or the join code.
            assert "classmate-secret" not in response.text, (caller, response.text)
            assert classroom.join_code not in response.text, (caller, response.text)
        assert "elsewhere-secret" not in response.text, (caller, response.text)


def test_refused_callers_change_nothing(api, world):
    classroom, assignment = world["classroom"], world["assignment"]
    code = classroom.join_code
    base = f"/api/v1/classrooms/{classroom.pk}"
    for caller in ("member", "former", "stranger", "other_teacher"):
        api.authenticate(world[caller])
        api.patch(f"{base}/", {"name": "Taken over"})
        api.post(f"{base}/rotate-code/")
        api.post(f"{base}/archive/")
        api.patch(f"{base}/assignments/{assignment.pk}/", {"title": "Taken over"})
        api.delete(f"{base}/assignments/{assignment.pk}/")
        api.delete(f"{base}/members/{world['classmate'].pk}/")
        api.delete(f"{base}/")

    classroom.refresh_from_db()
    assert (classroom.name, classroom.join_code) == ("Tuesday group", code)
    assert classroom.archived_at is None
    assert Assignment.objects.get(pk=assignment.pk).title == assignment.title
    assert set(classroom.members.values_list("username", flat=True)) == {
        "member",
        "classmate-secret",
    }


def test_the_list_shows_each_caller_their_own_classrooms_with_their_role(api, world):
    views = {}
    for caller in ("teacher", "member", "former", "other_teacher"):
        api.authenticate(world[caller])
        body = api.get("/api/v1/classrooms/").json()
        views[caller] = [(c["name"], c["role"], c["join_code"]) for c in body["results"]]

    code = world["classroom"].join_code
    assert views["teacher"] == [("Tuesday group", "teacher", code)]
    assert views["member"] == [("Tuesday group", "member", None)]
    assert views["former"] == []
    assert views["other_teacher"][0][:2] == ("Elsewhere", "teacher")
    assert_problem(api.anonymous().get("/api/v1/classrooms/"), 401)


def test_a_member_sees_only_their_own_completion(api, world):
    api.authenticate(world["member"])

    body = api.get(f"/api/v1/classrooms/{world['classroom'].pk}/assignments/").json()

    (assignment,) = body["results"]
    assert assignment["done"] is False  # answered, but the lesson is not completed
    assert "learners" not in assignment


def test_the_teacher_sees_each_learners_completion(api, world):
    world["member"].lesson_progress.create(lesson=world["lesson"], completed_at=timezone.now())
    api.authenticate(world["teacher"])

    body = api.get(f"/api/v1/classrooms/{world['classroom'].pk}/assignments/").json()

    (assignment,) = body["results"]
    assert assignment["done"] is None
    assert {(x["username"], x["done"]) for x in assignment["learners"]} == {
        ("member", True),
        ("classmate-secret", False),
    }


def test_create_join_rotate_leave(api, other_api):
    CourseFactory(slug="transformers")
    teacher, learner = UserFactory(), UserFactory()
    api.authenticate(teacher)
    other_api.authenticate(learner)

    created = api.post("/api/v1/classrooms/", {"name": "Evening", "course": "transformers"})
    assert created.status_code == 201, created.text
    room = created.json()
    code = room["join_code"]
    assert len(code) >= 8
    assert set(code) <= set(JOIN_CODE_ALPHABET)
    assert (room["name"], room["course"], room["role"]) == ("Evening", "transformers", "teacher")

    # Case, spaces and dashes are forgiven.
    typed = f"{code[:4].lower()}-{code[4:]} "
    joined = other_api.post("/api/v1/classrooms/join/", {"join_code": typed})
    assert joined.status_code == 201, joined.text
    assert joined.json()["classroom"]["role"] == "member"
    assert joined.json()["classroom"]["join_code"] is None
    again = other_api.post("/api/v1/classrooms/join/", {"join_code": code})
    assert again.status_code == 200, again.text

    rotated = api.post(f"/api/v1/classrooms/{room['id']}/rotate-code/").json()
    assert rotated["join_code"] != code
    stale = other_api.post("/api/v1/classrooms/join/", {"join_code": code})
    assert_problem(stale, 404, field="join_code")
    assert Membership.objects.filter(user=learner).count() == 1  # rotating keeps members

    left = other_api.post(f"/api/v1/classrooms/{room['id']}/leave/")
    assert left.status_code == 204, left.text
    assert_problem(other_api.get(f"/api/v1/classrooms/{room['id']}/"), 404)
    progress = api.get(f"/api/v1/classrooms/{room['id']}/progress/").json()
    assert progress == {"learners": []}


def test_the_teacher_cannot_join_their_own_classroom(api):
    classroom = ClassroomFactory()
    api.authenticate(classroom.teacher)

    response = api.post("/api/v1/classrooms/join/", {"join_code": classroom.join_code})

    assert_problem(response, 400, field="join_code")
    assert not Membership.objects.exists()


def test_a_removed_learner_can_no_longer_see_the_classroom(api, other_api):
    membership = MembershipFactory()
    classroom = membership.classroom
    api.authenticate(classroom.teacher)
    other_api.authenticate(membership.user)

    removed = api.delete(f"/api/v1/classrooms/{classroom.pk}/members/{membership.user_id}/")

    assert removed.status_code == 204, removed.text
    assert_problem(other_api.get(f"/api/v1/classrooms/{classroom.pk}/assignments/"), 404)
    again = api.delete(f"/api/v1/classrooms/{classroom.pk}/members/{membership.user_id}/")
    assert_problem(again, 404)


def test_joining_is_rate_limited(api):
    api.authenticate(UserFactory())

    statuses = [
        api.post("/api/v1/classrooms/join/", {"join_code": "ABCDEFGHJK"}).status_code
        for _ in range(21)
    ]

    assert statuses[:20] == [404] * 20
    assert_problem(api.post("/api/v1/classrooms/join/", {"join_code": "ABCDEFGHJK"}), 429)


# --- bad input: a problem naming the field, never a 500 -------------------------------------


@pytest.fixture
def teacher_room(api):
    course = CourseFactory(slug="transformers")
    classroom = ClassroomFactory(course=course)
    api.authenticate(classroom.teacher)
    return classroom


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "A", "course": "no-such-course"}, "course"),
        ({"name": "", "course": "transformers"}, "name"),
        ({"name": "A" * 121, "course": "transformers"}, "name"),
        ({"course": "transformers"}, "name"),
        ({"name": "A", "course": 7}, "course"),
        ({"name": "A", "course": "trans\x00formers"}, "course"),
    ],
)
def test_creating_a_classroom_with_bad_fields_is_a_400_naming_the_field(api, body, field):
    CourseFactory(slug="transformers")
    api.authenticate(UserFactory())

    assert_problem(api.post("/api/v1/classrooms/", body), 400, field=field)
    assert not Classroom.objects.exists()


def test_an_archived_course_cannot_get_a_classroom(api):
    CourseFactory(slug="old", archived_at=timezone.now())
    api.authenticate(UserFactory())

    assert_problem(api.post("/api/v1/classrooms/", {"name": "A", "course": "old"}), 400, "course")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"join_code": "NOPE2345NOPE"}, "join_code"),
        ({"join_code": "0O1Il!"}, "join_code"),
        ({"join_code": "X" * 40}, "join_code"),
        ({"join_code": 12345678}, "join_code"),
        ({}, "join_code"),
    ],
)
def test_a_bad_join_code_is_a_problem_naming_it(api, body, field):
    ClassroomFactory()
    api.authenticate(UserFactory())

    response = api.post("/api/v1/classrooms/join/", body)

    assert response.status_code in (400, 404), response.text
    assert_problem(response, response.status_code, field=field)
    assert not Membership.objects.exists()


def bad_assignment(case):
    other_course_question = QuestionFactory()
    other_course_lesson = LessonFactory(slug="elsewhere")
    body = {"title": "Homework", "question_ids": [], "due_at": "2030-01-01T09:00:00+01:00"}
    cases = {
        "lesson_outside": ({**body, "lesson": other_course_lesson.slug}, "lesson"),
        "lesson_unknown": ({**body, "lesson": "no-such-lesson"}, "lesson"),
        "lesson_nul": ({**body, "lesson": "mi\x00ne"}, "lesson"),
        "questions_outside": ({**body, "question_ids": [other_course_question.pk]}, "question_ids"),
        "questions_unknown": ({**body, "question_ids": [987654321]}, "question_ids"),
        "question_not_int": ({**body, "question_ids": ["1"]}, "question_ids"),
        "nothing_to_do": (body, "lesson"),
        "due_at_garbage": ({**body, "due_at": "next tuesday"}, "due_at"),
        "due_at_missing": ({"title": "Homework", "lesson": "mine"}, "due_at"),
        "title_missing": ({"lesson": "mine", "due_at": body["due_at"]}, "title"),
    }
    return cases[case]


@pytest.mark.parametrize(
    "case",
    [
        "lesson_outside",
        "lesson_unknown",
        "lesson_nul",
        "questions_outside",
        "questions_unknown",
        "question_not_int",
        "nothing_to_do",
        "due_at_garbage",
        "due_at_missing",
        "title_missing",
    ],
)
def test_a_bad_assignment_is_a_problem_naming_the_field(api, teacher_room, case):
    LessonFactory(course=teacher_room.course, slug="mine")
    body, field = bad_assignment(case)

    response = api.post(f"/api/v1/classrooms/{teacher_room.pk}/assignments/", body)

    body = assert_problem(response, 400)
    assert any(e["field"].startswith(field) for e in body["errors"]), body
    assert not Assignment.objects.exists()


def test_an_assignment_of_the_courses_lesson_and_questions_is_created(api, teacher_room):
    lesson = LessonFactory(course=teacher_room.course, slug="mine")
    first, second = QuestionFactory.create_batch(2, lesson=lesson)

    response = api.post(
        f"/api/v1/classrooms/{teacher_room.pk}/assignments/",
        {
            "title": "Homework",
            "lesson": "mine",
            "question_ids": [second.pk, first.pk, second.pk],
            "due_at": "2030-01-01T09:00:00+01:00",
        },
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["lesson"] == "mine"
    assert body["question_ids"] == [second.pk, first.pk]
    assert body["due_at"] == "2030-01-01T08:00:00Z"


def test_items_of_a_classroom_nobody_has_joined_list_each_question_unanswered(api, teacher_room):
    question = QuestionFactory(lesson=LessonFactory(course=teacher_room.course))

    response = api.get(f"/api/v1/classrooms/{teacher_room.pk}/items/")

    assert response.status_code == 200, response.text
    (item,) = response.json()["results"]
    assert (item["question"], item["answers"]) == (question.pk, 0)
    assert (item["facility"], item["discrimination"], item["misconceptions"]) == (None, None, [])


def test_a_bad_format_for_progress_is_a_400_naming_it(api, teacher_room):
    response = api.get(f"/api/v1/classrooms/{teacher_room.pk}/progress/?format=xml")

    assert_problem(response, 400, field="format")


# --- export and deletion ----------------------------------------------------------------------


def test_the_export_holds_classrooms_taught_and_memberships(api, world):
    api.authenticate(world["teacher"])
    taught = api.get("/api/v1/me/export/").json()["classrooms_taught"]
    api.authenticate(world["member"])
    belongs = api.get("/api/v1/me/export/").json()["classroom_memberships"]

    assert [(c["name"], c["course"], c["members"]) for c in taught] == [
        ("Tuesday group", "transformers", 2)
    ]
    assert taught[0]["assignments"][0]["lesson"] == "attention"
    assert [(m["classroom"], m["teacher"]) for m in belongs] == [("Tuesday group", "teacher")]


def test_a_deleted_teacher_takes_their_classrooms_along_but_not_the_learners_work(api, world):
    api.authenticate(world["teacher"])

    response = api.delete("/api/v1/me/", json={"password": PASSWORD})

    assert response.status_code == 204, response.text
    assert not Classroom.objects.filter(pk=world["classroom"].pk).exists()
    assert not Membership.objects.filter(user=world["member"]).exists()
    assert not Assignment.objects.exists()
    assert Answer.objects.filter(user=world["member"]).count() == 1


def test_a_deleted_learner_leaves_every_classroom(api, world):
    api.authenticate(world["member"])

    assert api.delete("/api/v1/me/", json={"password": PASSWORD}).status_code == 204
    assert list(world["classroom"].members.values_list("username", flat=True)) == [
        "classmate-secret"
    ]


def test_a_stale_assignment_due_in_the_past_is_not_done_when_late(api, world):
    classroom = world["classroom"]
    late = AssignmentFactory(
        classroom=classroom,
        question_ids=[world["question"].pk],
        due_at=timezone.now() - timedelta(days=1),
    )
    api.authenticate(world["member"])

    rows = api.get(f"/api/v1/classrooms/{classroom.pk}/assignments/").json()["results"]

    assert {r["id"]: r["done"] for r in rows}[late.pk] is False  # answered after it was due


# --- archiving, and changing an assignment -----------------------------------------------------


def test_an_archived_classroom_takes_nobody_until_it_is_restored(api, other_api):
    classroom = ClassroomFactory()
    api.authenticate(classroom.teacher)
    other_api.authenticate(UserFactory())
    base = f"/api/v1/classrooms/{classroom.pk}"

    archived = api.post(f"{base}/archive/")
    assert archived.status_code == 200, archived.text
    stamp = archived.json()["archived_at"]
    assert stamp is not None
    assert api.post(f"{base}/archive/").json()["archived_at"] == stamp  # twice: no change
    refused = other_api.post("/api/v1/classrooms/join/", {"join_code": classroom.join_code})
    assert_problem(refused, 400, field="join_code")
    assert not Membership.objects.exists()

    restored = api.post(f"{base}/restore/")
    assert restored.json()["archived_at"] is None
    joined = other_api.post("/api/v1/classrooms/join/", {"join_code": classroom.join_code})
    assert joined.status_code == 201, joined.text


def test_an_archived_classroom_hands_its_pro_seats_back_and_restoring_returns_them(api):
    membership = MembershipFactory()
    classroom = membership.classroom
    services.classroom_set_seats(classroom=classroom, pro_seats=1)
    learner = membership.user
    learner.refresh_from_db()
    assert learner.is_pro
    api.authenticate(classroom.teacher)

    api.post(f"/api/v1/classrooms/{classroom.pk}/archive/")
    learner.refresh_from_db()
    assert not learner.is_pro

    api.post(f"/api/v1/classrooms/{classroom.pk}/restore/")
    learner.refresh_from_db()
    assert learner.is_pro


def test_a_patch_changes_only_the_fields_sent(api, world):
    assignment = world["assignment"]
    api.authenticate(world["teacher"])

    response = api.patch(
        f"/api/v1/classrooms/{world['classroom'].pk}/assignments/{assignment.pk}/",
        {"due_at": "2031-02-03T10:00:00+01:00"},
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["due_at"] == "2031-02-03T09:00:00Z"
    assert (body["title"], body["lesson"], body["question_ids"]) == (
        assignment.title,
        "attention",
        [world["question"].pk],
    )
    assert {x["username"] for x in body["learners"]} == {"member", "classmate-secret"}


def test_moving_the_due_time_before_the_work_undoes_its_completion(api, world):
    assignment = world["assignment"]
    path = f"/api/v1/classrooms/{world['classroom'].pk}/assignments/{assignment.pk}/"
    api.authenticate(world["teacher"])
    api.patch(path, {"lesson": None})  # questions only: answered right, so done
    before = {x["username"]: x["done"] for x in api.get(path).json()["learners"]}
    assert before == {"member": True, "classmate-secret": True}

    answered = Answer.objects.filter(user=world["member"]).get().created_at
    api.patch(path, {"due_at": (answered - timedelta(minutes=1)).isoformat()})

    after = {x["username"]: x["done"] for x in api.get(path).json()["learners"]}
    assert after == {"member": False, "classmate-secret": False}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"lesson": None, "question_ids": []}, "lesson"),
        ({"lesson": "elsewhere"}, "lesson"),
        ({"question_ids": [987654321]}, "question_ids"),
        ({"due_at": "soon"}, "due_at"),
        ({"title": ""}, "title"),
        ({"title": "x\x00y"}, "title"),
    ],
)
def test_a_bad_change_to_an_assignment_is_a_problem_and_changes_nothing(api, world, body, field):
    LessonFactory(slug="elsewhere")  # another course's lesson
    assignment = world["assignment"]
    api.authenticate(world["teacher"])

    response = api.patch(
        f"/api/v1/classrooms/{world['classroom'].pk}/assignments/{assignment.pk}/", body
    )

    problem = assert_problem(response, 400)
    assert any(e["field"].startswith(field) for e in problem["errors"]), problem
    fresh = Assignment.objects.get(pk=assignment.pk)
    assert (fresh.title, fresh.lesson_id, fresh.question_ids, fresh.due_at) == (
        assignment.title,
        assignment.lesson_id,
        assignment.question_ids,
        assignment.due_at,
    )


def test_another_classrooms_assignment_is_not_found_through_this_one(api, world):
    teacher = world["teacher"]
    mine_too = ClassroomFactory(teacher=teacher, course=world["classroom"].course)
    theirs = AssignmentFactory(classroom=ClassroomFactory(course=world["classroom"].course))
    api.authenticate(teacher)
    assignment = world["assignment"]

    for room, target in ((mine_too, assignment), (world["classroom"], theirs)):
        path = f"/api/v1/classrooms/{room.pk}/assignments/{target.pk}/"
        assert_problem(api.get(path), 404)
        assert_problem(api.patch(path, {"title": "Moved"}), 404)
        assert_problem(api.delete(path), 404)
    assert Assignment.objects.filter(pk__in=[assignment.pk, theirs.pk]).count() == 2


def test_deleting_an_assignment_keeps_the_learners_work(api, world):
    api.authenticate(world["teacher"])
    path = f"/api/v1/classrooms/{world['classroom'].pk}/assignments/{world['assignment'].pk}/"

    assert api.delete(path).status_code == 204
    assert_problem(api.get(path), 404)
    assert_problem(api.delete(path), 404)
    assert Answer.objects.count() == 2
