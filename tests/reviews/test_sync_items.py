"""Sync items are checked as plain dicts, exactly as the item serializer would check them."""

import uuid
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from config.problems import flatten_errors
from reviews import services
from reviews.api.serializers import AnswerInSerializer
from reviews.api.sync import OfflineReviewSerializer
from reviews.api.sync_items import answer_submitted, offline_review, offline_reviews
from reviews.sync import OfflineReview

FIELDS = [
    "response",
    "choice_ids",
    "variant",
    "self_rating",
    "mode",
    "duration_ms",
    "client_id",
    "reveal",
    "question",
    "reviewed_at",
]
GOOD = {
    "client_id": "5b0d9a64-1a1b-4c44-9d5e-7f6a4bb0c7f1",
    "question": 7,
    "reviewed_at": "2026-01-05T09:30:00Z",
    "response": "8e6",
}


def by_serializer(item):
    """(errors, values) as the serializer gives them; values leave out `mode`, as sync does."""
    checked = OfflineReviewSerializer(data=item)
    checked.is_valid()
    errors = flatten_errors(ValidationError(checked.errors).get_full_details())
    values = {k: v for k, v in checked.validated_data.items() if k != "mode"}
    return [{**e, "message": str(e["message"])} for e in errors], _comparable(values)


def by_sync_items(item):
    checked = offline_review(index=0, item=item)
    if isinstance(checked, dict):
        return checked["errors"], {}
    submitted = {
        name: getattr(checked.submitted, name)
        for name in ("response", "choice_ids", "variant", "self_rating", "duration_ms", "reveal")
        if getattr(checked.submitted, name) is not None
    }
    values = {
        **submitted,
        "client_id": checked.client_id,
        "question": checked.question_id,
        "reviewed_at": checked.reviewed_at,
    }
    return [], _comparable(values)


def _comparable(values):
    # Datetimes compared with their zone too, not only as instants.
    return {k: (v, str(v.tzinfo)) if isinstance(v, datetime) else v for k, v in values.items()}


ODD_ITEMS = [
    GOOD,
    {**GOOD, "choice_ids": [3, 1], "self_rating": "easy", "duration_ms": 0, "mode": "practice"},
    {},
    {"unknown": 1},
    dict.fromkeys(FIELDS),
    dict.fromkeys(FIELDS, ""),
    dict.fromkeys(FIELDS, "  "),
    dict.fromkeys(FIELDS, True),
    {name: [] for name in FIELDS},
    {name: {} for name in FIELDS},
    dict.fromkeys(FIELDS, 0),
    dict.fromkeys(FIELDS, -1),
    dict.fromkeys(FIELDS, 1.5),
    {**GOOD, "response": 8000000, "variant": 2.5},
    {**GOOD, "response": "x" * 2001 + "\x00\ud800"},
    {**GOOD, "variant": " token ", "response": "  8e6  "},
    {**GOOD, "variant": "v" * 501},
    {**GOOD, "variant": "a\x00b"},
    {**GOOD, "choice_ids": [0, "1", None, True, 2.0, 5]},
    {**GOOD, "choice_ids": list(range(1, 10))},
    {**GOOD, "choice_ids": "1,2"},
    {**GOOD, "choice_ids": {"a": 1}},
    {**GOOD, "self_rating": "Again"},
    {**GOOD, "self_rating": ["again"]},
    {**GOOD, "mode": "exam"},
    {**GOOD, "duration_ms": 86_400_001},
    {**GOOD, "duration_ms": "9000"},
    {**GOOD, "client_id": 5},
    {**GOOD, "client_id": -5},
    {**GOOD, "client_id": 2**128},
    {**GOOD, "client_id": "{5b0d9a64-1a1b-4c44-9d5e-7f6a4bb0c7f1}"},
    {**GOOD, "client_id": "urn:uuid:5b0d9a64-1a1b-4c44-9d5e-7f6a4bb0c7f1"},
    {**GOOD, "client_id": "5b0d9a641a1b4c449d5e7f6a4bb0c7f1"},
    {**GOOD, "client_id": "not-a-uuid"},
    {**GOOD, "question": "7"},
    {**GOOD, "question": 7.0},
    {**GOOD, "question": 2**70},
    {**GOOD, "question": 2**63},
    {**GOOD, "reveal": 2**63},
    {**GOOD, "reveal": 0},
    {**GOOD, "reveal": "3"},
    {**GOOD, "reveal": 3, "self_rating": "good"},
    {**GOOD, "reviewed_at": "2026-01-05T09:30:00"},
    {**GOOD, "reviewed_at": "2026-01-05T09:30:00+01:00"},
    {**GOOD, "reviewed_at": "2026-01-05T09:30:00.123456-05:30"},
    {**GOOD, "reviewed_at": "2026-01-05T09:30:00+0100"},
    {**GOOD, "reviewed_at": "2026-01-05 09:30Z"},
    {**GOOD, "reviewed_at": "2026-01-05"},
    {**GOOD, "reviewed_at": "2026-13-05T09:30:00Z"},
    {**GOOD, "reviewed_at": "0001-01-01T00:00:00+01:00"},
    {**GOOD, "reviewed_at": "9999-12-31T23:59:59-01:00"},
    {**GOOD, "reviewed_at": "yesterday"},
    {**GOOD, "reviewed_at": 1767605400},
]


def test_odd_items_are_taken_and_refused_as_the_serializer_does():
    assert [by_sync_items(item) for item in ODD_ITEMS] == [by_serializer(i) for i in ODD_ITEMS]


def test_a_good_item_becomes_a_review_to_apply():
    checked = offline_review(index=3, item={**GOOD, "choice_ids": [2, 1], "duration_ms": 900})

    assert checked == OfflineReview(
        index=3,
        client_id=uuid.UUID(GOOD["client_id"]),
        question_id=7,
        reviewed_at=datetime(2026, 1, 5, 9, 30, tzinfo=UTC),
        submitted=checked.submitted,
    )
    assert (checked.submitted.response, checked.submitted.choice_ids) == ("8e6", [2, 1])
    assert checked.submitted.client_id == uuid.UUID(GOOD["client_id"])


def test_a_refused_item_names_its_client_id_as_read_when_it_is_one():
    reviews, refused = offline_reviews(
        [
            GOOD,
            {**GOOD, "question": 0},
            {**GOOD, "client_id": 5, "question": 0},
            {**GOOD, "client_id": "x\x00\ud800", "question": 0},
            "x",
            None,
        ]
    )

    assert [r.index for r in reviews] == [0]
    assert [refused[i]["client_id"] for i in (1, 2, 3, 4, 5)] == [
        GOOD["client_id"],
        "00000000-0000-0000-0000-000000000005",
        None,
        None,
        None,
    ]
    assert (
        refused[4]["errors"]
        == refused[5]["errors"]
        == [{"field": None, "code": "not_an_object", "message": "Send each review as an object."}]
    )


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=10) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)
field_values = {
    "response": st.text(max_size=40) | st.integers() | st.floats(allow_nan=False),
    "choice_ids": st.lists(st.integers(min_value=-2, max_value=30), max_size=10),
    "variant": st.text(max_size=20),
    "self_rating": st.sampled_from(["again", "hard", "good", "easy", "Good", " good", ""]),
    "mode": st.sampled_from(["review", "practice", "exam"]),
    "duration_ms": st.integers(min_value=-10, max_value=90_000_000),
    "client_id": st.uuids().map(str) | st.integers(min_value=-3, max_value=2**129),
    "question": st.integers(min_value=-3, max_value=2**64),
    "reveal": st.integers(min_value=-3, max_value=2**64),
    "reviewed_at": st.datetimes(timezones=st.sampled_from([UTC, None])).map(datetime.isoformat)
    | st.dates().map(str)
    | st.text(max_size=26),
}
REQUIRED = ("client_id", "question", "reviewed_at")
any_items = st.fixed_dictionaries(
    {}, optional={name: strategy | json_values for name, strategy in field_values.items()}
)
likely_items = st.fixed_dictionaries(
    {name: field_values[name] for name in REQUIRED},
    optional={k: v for k, v in field_values.items() if k not in REQUIRED},
)


@settings(max_examples=500, derandomize=True, deadline=None)
@given(item=any_items | likely_items)
def test_any_item_is_taken_or_refused_as_the_serializer_does(item):
    assert by_sync_items(item) == by_serializer(item)


def by_answer_serializer(body):
    """The answer as `AnswerInSerializer` takes it, or None when it refuses the body."""
    checked = AnswerInSerializer(data=body)
    return services.Submitted(**checked.validated_data) if checked.is_valid() else None


ANSWER_BODIES = [
    *ODD_ITEMS,
    *({k: v for k, v in i.items() if k not in ("question", "reviewed_at")} for i in ODD_ITEMS),
    {"response": "0.5", "variant": "token", "duration_ms": 4000},
    {"response": "0.5", "mode": "practice", "client_id": None},
    {"choice_ids": []},
    [],
    [GOOD],
    "8e6",
    None,
    7,
]


def test_answer_bodies_are_taken_as_the_answer_serializer_takes_them():
    taken = [answer_submitted(body) for body in ANSWER_BODIES]

    assert taken == [by_answer_serializer(body) for body in ANSWER_BODIES]
    # Both kinds occur, so the comparison means something either way.
    assert None in taken
    assert sum(t is not None for t in taken) >= 10
    assert taken[0] == services.Submitted(response="8e6", client_id=uuid.UUID(GOOD["client_id"]))


@settings(max_examples=500, derandomize=True, deadline=None)
@given(body=any_items | likely_items)
def test_any_answer_body_is_taken_as_the_answer_serializer_takes_it(body):
    assert answer_submitted(body) == by_answer_serializer(body)
