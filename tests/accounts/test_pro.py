"""Pro: one rule (`accounts.entitlements`), grants with their sources and ends, licence codes,
classroom seats, and what `/api/v1/me/` and `/api/v1/plans/` say about it."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import entitlements, licences
from accounts.models import Grant, LicenceCode, User
from classrooms import seats
from classrooms import services as classroom_services
from classrooms.models import Classroom
from tests.conftest import assert_problem
from tests.factories import PASSWORD, ClassroomFactory, CourseFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

Source = Grant.Source


def fresh(user: User) -> User:
    return User.objects.get(pk=user.pk)


def batch(*, days: int = 30, count: int = 3, expires_in: timedelta = timedelta(days=90)):
    return licences.batch_create(
        name="Hillside School",
        days=days,
        expires_at=timezone.now() + expires_in,
        count=count,
        created_by=None,
    )


# --- the rule ----------------------------------------------------------------------------


def test_pro_is_read_from_the_user_row_with_no_query():
    user = UserFactory(plan="pro")

    with CaptureQueriesContext(connection) as queries:
        assert entitlements.has_pro(user)
        assert user.plan == "pro"

    assert len(queries) == 0


def test_pro_ends_when_its_last_grant_ends():
    user = UserFactory()
    now = timezone.now()
    entitlements.grant_add(
        user_id=user.pk, source=Source.LICENCE, reference="a", ends_at=now + timedelta(days=3)
    )
    entitlements.grant_add(
        user_id=user.pk, source=Source.STAFF, reference="b", ends_at=now + timedelta(days=10)
    )
    user = fresh(user)

    assert user.pro_until == now + timedelta(days=10)
    assert entitlements.has_pro(user, at=now + timedelta(days=9))
    assert not entitlements.has_pro(user, at=now + timedelta(days=10, seconds=1))

    entitlements.grant_end(user_id=user.pk, source=Source.STAFF, reference="b")
    user = fresh(user)
    assert user.pro_until == now + timedelta(days=3)  # the licence's days are still there


def test_an_ended_grant_leaves_when_pro_stopped_and_the_user_free():
    user = UserFactory()
    entitlements.grant_add(user_id=user.pk, source=Source.CLASSROOM, reference="classroom:1")
    assert fresh(user).pro_until == entitlements.FOREVER

    entitlements.grant_end(user_id=user.pk, source=Source.CLASSROOM, reference="classroom:1")

    user = fresh(user)
    assert user.pro_until is not None
    assert user.pro_until <= timezone.now()
    assert not entitlements.has_pro(user)
    assert entitlements.pro_until(user) is None


def test_the_same_grant_given_twice_is_one_grant():
    user = UserFactory()
    end = timezone.now() + timedelta(days=5)
    for _ in range(3):
        entitlements.grant_add(user_id=user.pk, source=Source.STAFF, reference="x", ends_at=end)

    assert Grant.objects.filter(user=user).count() == 1


def test_visitors_never_have_pro():
    from django.contrib.auth.models import AnonymousUser

    assert not entitlements.has_pro(AnonymousUser())


# --- licence codes -------------------------------------------------------------------------


def test_a_batch_makes_distinct_well_formed_codes():
    made = batch(count=200)

    codes = list(LicenceCode.objects.filter(batch=made).values_list("code", flat=True))
    assert len(codes) == len(set(codes)) == 200
    assert all(licences.well_formed(c) for c in codes)


def test_a_licence_code_gives_its_days_once(api):
    learner = UserFactory()
    code = LicenceCode.objects.filter(batch=batch(days=30)).first()
    api.authenticate(learner)
    printed = code.grouped.lower().replace("-", " - ")  # as a learner might type it

    first = api.post("/api/v1/licences/redeem/", {"code": printed})

    assert first.status_code == 200, first.text
    assert first.json()["plan"] == "pro"
    assert first.json()["days"] == 30
    until = fresh(learner).pro_until
    assert timedelta(days=29, hours=23) < until - timezone.now() <= timedelta(days=30)

    again = api.post("/api/v1/licences/redeem/", {"code": code.code})
    problem = assert_problem(again, 400, field="code")
    assert problem["errors"][0]["code"] == "already_redeemed"
    assert fresh(learner).pro_until == until

    other = UserFactory()
    api.authenticate(other)
    assert_problem(api.post("/api/v1/licences/redeem/", {"code": code.code}), 400, field="code")
    assert not entitlements.has_pro(fresh(other))


def test_a_second_code_adds_its_days_after_the_first():
    learner = UserFactory()
    first, second = LicenceCode.objects.filter(batch=batch(days=10))[:2]

    licences.redeem(user=learner, raw_code=first.code)
    after_one = fresh(learner).pro_until
    licences.redeem(user=learner, raw_code=second.code)

    assert fresh(learner).pro_until - after_one == timedelta(days=10)


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("NOPE-NOPE-NOPE-NOPE", "unknown_code"),
        ("ABCD\x00EFGH", "null_characters_not_allowed"),
        ("A" * 64, "unknown_code"),
        ("", None),
    ],
)
def test_codes_that_are_not_codes_are_refused_by_name(api, code, reason):
    api.authenticate(UserFactory())

    problem = assert_problem(api.post("/api/v1/licences/redeem/", {"code": code}), 400, "code")

    if reason:
        assert problem["errors"][0]["code"] == reason


def test_an_expired_code_gives_nothing(api):
    made = batch(expires_in=timedelta(days=1))
    code = LicenceCode.objects.filter(batch=made).first()
    made.expires_at = timezone.now() - timedelta(minutes=1)
    made.save()
    learner = UserFactory()
    api.authenticate(learner)

    problem = assert_problem(api.post("/api/v1/licences/redeem/", {"code": code.code}), 400)

    assert problem["errors"][0]["code"] == "expired"
    assert fresh(learner).pro_until is None
    code.refresh_from_db()
    assert code.redeemed_at is None


def test_redeeming_needs_an_account_and_is_throttled(api, settings):
    code = LicenceCode.objects.filter(batch=batch()).first()
    assert_problem(api.post("/api/v1/licences/redeem/", {"code": code.code}), 401)

    api.authenticate(UserFactory())
    statuses = [
        api.post("/api/v1/licences/redeem/", {"code": "WXYZ-WXYZ-WXYZ-WXYZ"}).status_code
        for _ in range(12)
    ]
    assert statuses[:10] == [400] * 10
    assert statuses[10:] == [429, 429]


# --- classroom seats ----------------------------------------------------------------------


@pytest.fixture
def seated():
    course = CourseFactory()
    classroom = ClassroomFactory(course=course)
    classroom_services.classroom_set_seats(classroom=classroom, pro_seats=2)
    return classroom


def join(user: User, classroom: Classroom) -> None:
    classroom_services.classroom_join(user=user, join_code=classroom.join_code)


def test_members_have_pro_up_to_the_seat_count(seated):
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    for user in (first, second, third):
        join(user, seated)

    assert [entitlements.has_pro(fresh(u)) for u in (first, second, third)] == [True, True, False]
    assert fresh(first).pro_until == entitlements.FOREVER


def test_a_learner_who_leaves_loses_the_seat_and_the_next_one_gains_it(seated):
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    for user in (first, second, third):
        join(user, seated)

    classroom_services.classroom_leave(classroom=seated, user=first)

    assert not entitlements.has_pro(fresh(first))
    assert entitlements.has_pro(fresh(third))

    classroom_services.member_remove(classroom=seated, user_id=third.pk)
    assert not entitlements.has_pro(fresh(third))


def test_a_seat_does_not_end_pro_from_elsewhere(seated):
    learner = UserFactory()
    code = LicenceCode.objects.filter(batch=batch(days=30)).first()
    licences.redeem(user=learner, raw_code=code.code)
    join(learner, seated)

    classroom_services.classroom_leave(classroom=seated, user=learner)

    learner = fresh(learner)
    assert entitlements.has_pro(learner)
    assert learner.pro_until < timezone.now() + timedelta(days=31)


def test_archiving_or_deleting_the_class_hands_its_seats_back(seated):
    learner = UserFactory()
    join(learner, seated)

    classroom_services.classroom_archive(classroom=seated)
    assert not entitlements.has_pro(fresh(learner))
    classroom_services.classroom_restore(classroom=seated)
    assert entitlements.has_pro(fresh(learner))

    classroom_services.classroom_delete(classroom=seated)
    assert not entitlements.has_pro(fresh(learner))


def test_a_seat_holder_who_deletes_their_account_hands_the_seat_on(api, seated):
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    for user in (first, second, third):
        join(user, seated)
    api.authenticate(first)

    assert api.delete("/api/v1/me/", json={"password": PASSWORD}).status_code == 204

    assert entitlements.has_pro(fresh(third))
    assert seats.seats_taken(classroom=seated) == 2


def test_an_account_deletion_that_rolls_back_hands_no_seat_on(seated):
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    for user in (first, second, third):
        join(user, seated)

    def delete_then_fail() -> None:
        with transaction.atomic():
            User.objects.get(pk=first.pk).delete()
            raise RuntimeError("the deletion fails after the cascade")

    with pytest.raises(RuntimeError):
        delete_then_fail()

    assert [entitlements.has_pro(fresh(u)) for u in (first, second, third)] == [True, True, False]


def test_fewer_seats_take_pro_from_the_latest_to_join(seated):
    first, second = UserFactory(), UserFactory()
    join(first, seated)
    join(second, seated)

    classroom_services.classroom_set_seats(classroom=seated, pro_seats=1)

    assert entitlements.has_pro(fresh(first))
    assert not entitlements.has_pro(fresh(second))


# --- what the API says ---------------------------------------------------------------------


def test_me_says_the_plan_and_until_when(api):
    learner = UserFactory()
    api.authenticate(learner)
    body = api.get("/api/v1/me/").json()
    assert (body["plan"], body["pro_until"]) == ("free", None)

    code = LicenceCode.objects.filter(batch=batch(days=7)).first()
    licences.redeem(user=learner, raw_code=code.code)

    body = api.get("/api/v1/me/").json()
    assert body["plan"] == "pro"
    assert body["pro_until"].startswith(str(fresh(learner).pro_until.year))


def test_plans_say_what_each_gives_and_that_billing_is_not_set_up(api, settings):
    settings.STRIPE_SECRET_KEY = ""

    body = api.get("/api/v1/plans/").json()

    assert body["billing_configured"] is False
    assert body["you"] is None
    assert body["free"]
    assert body["pro"]

    learner = UserFactory()
    entitlements.grant_add(user_id=learner.pk, source=Source.CLASSROOM, reference="classroom:9")
    api.authenticate(learner)
    you = api.get("/api/v1/plans/").json()["you"]
    assert you["plan"] == "pro"
    assert you["sources"] == [{"source": "classroom", "ends_at": None}]
