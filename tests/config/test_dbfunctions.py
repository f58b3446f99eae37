"""The database functions the ORM lacks, on whichever database the suite runs against."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.models import Count, Q

from accounts.models import User
from config.dbfunctions import AnyOf, Epoch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    return UserFactory.create_batch(5)


def test_any_of_keeps_the_rows_whose_id_is_listed(users):
    wanted = [users[0].pk, users[3].pk, 10**12]  # an id no row has matches nothing

    found = User.objects.filter(AnyOf("pk", wanted)).order_by("pk")

    assert list(found) == [users[0], users[3]]


def test_any_of_an_empty_list_keeps_nothing(users):
    assert not User.objects.filter(AnyOf("pk", [])).exists()
    assert User.objects.exclude(AnyOf("pk", [])).count() == len(users)


def test_any_of_sends_the_ids_as_one_parameter(users):
    ids = [u.pk for u in users] * 200  # a thousand ids
    query = User.objects.filter(AnyOf("pk", ids))

    sql, params = query.query.sql_with_params()

    assert query.count() == len(users)
    assert len(params) == 1
    assert ("= ANY(" if connection.vendor == "postgresql" else "json_each(") in sql


def test_any_of_works_inside_an_aggregates_filter(users):
    counted = User.objects.aggregate(
        picked=Count("pk", filter=Q(is_active=True) & AnyOf("pk", [users[1].pk, users[2].pk]))
    )

    assert counted == {"picked": 2}


def test_any_of_takes_only_whole_numbers():
    with pytest.raises(TypeError, match="whole numbers"):
        AnyOf("pk", ["1) OR (1=1"])


def test_epoch_is_seconds_since_1970_to_the_microsecond(users):
    moment = datetime(2026, 3, 29, 1, 2, 3, 456789, tzinfo=UTC)
    User.objects.filter(pk=users[0].pk).update(date_joined=moment)

    seconds = User.objects.filter(pk=users[0].pk).values_list(Epoch("date_joined"), flat=True)

    assert seconds.get() == moment.timestamp()
