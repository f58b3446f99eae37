"""Any body at all, sent to every write endpoint, is answered without a server error.

Every route of the URL conf that takes POST, PUT, PATCH or DELETE (new ones included) gets
arbitrary JSON: nested values under the field names the API knows and under odd ones, strings
with NUL, unpaired surrogates and right-to-left marks, integers far past 64 bits, floats at
their limits, and raw bodies nested a hundred thousand levels deep or holding numbers of
thousands of digits. Each answer is a success or a problem document, never a 5xx.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts import services as account_services
from reviews.models import Card
from tests.factories import (
    PASSWORD,
    ClassroomFactory,
    LessonFactory,
    MembershipFactory,
    QuestionFactory,
    UserFactory,
)
from tests.support.routes import api_routes

pytestmark = pytest.mark.django_db(transaction=True)

# Starting a checkout or a portal session reads no body at all (only who asks): there is
# nothing to fuzz, and without Stripe keys both answer 503 billing-not-configured by design
# (tests/accounts/test_billing.py holds them). The webhook is fuzzed, with a secret set.
BODILESS = {"/api/v1/billing/checkout/", "/api/v1/billing/portal/"}

WRITES = [
    (method, route)
    for route in api_routes()
    for method in route.methods
    if method in {"POST", "PUT", "PATCH", "DELETE"} and route.path() not in BODILESS
]

# Names the API reads, so values reach real fields as well as being ignored as unknown keys.
FIELDS = [
    "username", "password", "email", "session", "timezone", "desired_retention",
    "new_cards_per_day", "reviews_per_day", "day_starts_at_hour", "reminder_hour",
    "email_reminders", "ids", "name", "course", "join_code", "title", "lesson", "question",
    "question_ids", "due_at", "message", "response", "choice_ids", "variant", "self_rating",
    "mode", "duration_ms", "client_id", "reviews", "reviewed_at",
]  # fmt: skip
ODD_TEXT = st.sampled_from(
    [
        "",
        "\x00",
        "a\x00b",
        "\ud800",
        "\udfff tail",
        "\u202eevil",
        "\ufeff",
        "ａｌｉｃｅ",
        "8e6",
        "2030-01-01T09:00:00Z",
        "8c5e7a4e-5f0b-4d43-9a47-0c1d2b3e4f50",
        "x" * 5_000,
        "=cmd|' /C calc'!A0",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63 - 2, max_value=2**70),
    st.integers(min_value=-(2**70), max_value=-(2**63) + 2),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e308, -1e308, 5e-324, 0.0, -0.0]),
    st.text(max_size=40),
    ODD_TEXT,
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(
            st.one_of(st.sampled_from(FIELDS), st.text(max_size=10)), inner, max_size=6
        ),
    ),
    max_leaves=25,
)
OBJECTS = st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=8)


def _raw(text: str) -> bytes:
    # Unpaired surrogates stay as JSON escapes, which is how a client would send them.
    return text.encode("utf-8", "surrogatepass")


BODIES = st.one_of(
    OBJECTS.map(lambda body: json.dumps(body).encode()),
    JSON.map(lambda body: json.dumps(body).encode()),
    st.integers(min_value=1, max_value=100_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=50_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.integers(min_value=4_000, max_value=20_000).map(
        lambda n: b'{"question": ' + b"9" * n + b"}"
    ),
    st.sampled_from([b"", b"{", b"nul", b"NaN", b"[1e999]", b'{"a": Infinity}', b"\xff\xfe"]),
    ODD_TEXT.map(lambda text: _raw(json.dumps({"response": text}, ensure_ascii=False))),
)


HOSTILE = st.one_of(
    JSON,
    ODD_TEXT,
    st.lists(st.integers(min_value=2**63 - 2, max_value=2**70), min_size=1, max_size=3),
    st.lists(st.integers(min_value=-(2**70), max_value=0), min_size=1, max_size=3),
)


def baseline(method: str, template: str, values: dict[str, Any]) -> dict[str, Any]:
    """A body the endpoint would accept, so that a hostile value in one field gets past the
    others to where the work is done; {} for an endpoint that takes none."""
    review = {
        "client_id": "8c5e7a4e-5f0b-4d43-9a47-0c1d2b3e4f50",
        "question": values["question_id"],
        "reviewed_at": "2026-01-05T09:30:00Z",
        "response": "8e6",
    }
    bodies = {
        "POST /api/v1/auth/register/": {"username": "fuzzed", "password": PASSWORD},
        "POST /api/v1/auth/login/": {"username": values["username"], "password": PASSWORD},
        "PATCH /api/v1/me/": {"timezone": "UTC", "reminder_hour": 8},
        "DELETE /api/v1/me/": {"password": "not the password"},
        "POST /api/v1/notifications/read/": {"ids": [1]},
        "POST /api/v1/classrooms/": {"name": "Evening", "course": values["course"]},
        "PATCH /api/v1/classrooms/<id:classroom_id>/": {"name": "Evening"},
        "POST /api/v1/classrooms/join/": {"join_code": "ABCD-EFGH"},
        "POST /api/v1/classrooms/<id:classroom_id>/assignments/": {
            "title": "Read it",
            "lesson": values["slug"],
            "question_ids": [values["question_id"]],
            "due_at": "2030-01-01T09:00:00Z",
        },
        "POST /api/v1/reports/": {"lesson": values["slug"], "message": "A typo."},
        "POST /api/v1/questions/<id:question_id>/answers/": {"response": "8e6"},
        "POST /api/v1/reviews/sync/": {"reviews": [review]},
    }
    return bodies.get(f"{method} {template}", {})


def mutated(base: dict[str, Any]) -> st.SearchStrategy[bytes]:
    """The body with one to three fields, known or not, given hostile values; in a sync, the
    fields of its review too."""
    names = st.sampled_from(sorted(base) or FIELDS) | st.sampled_from(FIELDS)
    changes = st.dictionaries(names, HOSTILE, min_size=1, max_size=3)
    review = base.get("reviews", [{}])[0]
    bodies = st.builds(lambda change: {**base, **change}, changes) | st.builds(
        lambda change: {**base, "reviews": [{**review, **change}]}, changes
    )
    return bodies.map(lambda body: json.dumps(body).encode())


@pytest.fixture
def world():
    """A learner who teaches a classroom with a member, and a question with its card."""
    teacher = UserFactory()
    classroom = ClassroomFactory(teacher=teacher)
    lesson = LessonFactory(course=classroom.course)
    question = QuestionFactory(lesson=lesson)
    card = Card.objects.create(user=teacher, question=question, due=timezone.now(), seed=1)
    member = MembershipFactory(classroom=classroom).user
    return {
        "user": teacher,
        "values": {
            "classroom_id": classroom.pk,
            "question_id": question.pk,
            "card_id": card.pk,
            "user_id": member.pk,
            "slug": lesson.slug,
            "course": classroom.course.slug,
            "username": teacher.username,
        },
    }


def _key(user: Any) -> str:
    # A fresh token each time: a logout in one example must not sign the next one out.
    return account_services.token_create(user=user)[1]


@pytest.mark.parametrize(
    ("method", "route"), WRITES, ids=[f"{method} {route.template}" for method, route in WRITES]
)
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "30")),
    derandomize=not os.environ.get("FUZZ_RANDOM"),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_body_makes_a_write_endpoint_fail(api, world, method, route, data, settings):
    settings.STRIPE_WEBHOOK_SECRET = "whsec_fuzz"  # an unsigned body is then 400, as in production
    base = baseline(method, route.template, world["values"])
    body = data.draw(BODIES | mutated(base), label="body")
    cache.clear()  # rate limits would answer 429 before the body is read

    response = api.request(
        method,
        route.path(**world["values"]),
        data=body,
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Token {_key(world['user'])}",
        },
    )

    assert response.status_code < 500, (body[:300], response.text[:500])
    assert response.status_code < 400 or response.headers["Content-Type"].startswith(
        "application/problem+json"
    ), response.text[:500]
