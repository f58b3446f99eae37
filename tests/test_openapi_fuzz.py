"""Schemathesis fuzzes every operation of the OpenAPI schema in-process, one by one and in
sequences that follow the links between operations (a classroom created, then read, renamed
and deleted; a card listed, then suspended).

Any server error, undocumented status, wrong content type or body that breaks the schema fails
the test; in sequences, so does a resource that is missing right after it was created or still
there after it was deleted. New endpoints are fuzzed as soon as they appear in the schema.
"""

import os
from typing import Any

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ensure_resource_availability,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
    use_after_free,
)

from accounts import services
from config.wsgi import application
from tests.factories import (
    CourseFactory,
    GlossaryTermFactory,
    LessonFactory,
    SectionFactory,
    UserFactory,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
SEQUENCE_CHECKS = [*CHECKS, ensure_resource_availability, use_after_free]
# Signing out revokes the caller's tokens: these run as a user of their own, so the rest of a
# sequence keeps the token it runs on.
SIGN_OUTS = {"/api/v1/auth/logout/", "/api/v1/auth/logout-all/"}

# A sync reports each bad review in its 200 answer, so one bad item never sinks the batch: an
# item that breaks its schema is refused there, not with a 4xx (the batch as a whole still is).
NOT_CHECKED: dict[str, set[Any]] = {"POST /api/v1/reviews/sync/": {negative_data_rejection}}
# The suite runs without Stripe keys: billing then answers 503 `billing-not-configured` by
# design (a state of the server, documented in the schema), never a crash; its tests are in
# tests/accounts/test_billing.py.
for _path in ("checkout", "portal", "webhook"):
    NOT_CHECKED[f"POST /api/v1/billing/{_path}/"] = {not_a_server_error}


def checks_for(case: Any, checks: list[Any]) -> list[Any]:
    return [c for c in checks if c not in NOT_CHECKED.get(case.operation.label, set())]


# The schema view touches no database, so it can be read while tests are collected.
schema = schemathesis.openapi.from_wsgi(
    "/api/v1/schema/", application, headers={"X-Forwarded-Proto": "https"}
)


@pytest.fixture
def content(db):
    # Requests go straight to the WSGI app inside the test's transaction; like Django's own
    # test client, keep the end of a request from closing the connection that holds it.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    course = CourseFactory(slug="transformers")
    lesson = LessonFactory(course=course, slug="block-anatomy", access="pro")
    SectionFactory(lesson=lesson, access="free")
    SectionFactory(lesson=lesson, access="pro")
    GlossaryTermFactory(course=course, lesson=lesson)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def new_key() -> str:
    user = UserFactory.build()
    user.save()
    return services.token_create(user=user)[1]


def headers(key: str) -> dict[str, str]:
    return {"Authorization": f"Token {key}", "X-Forwarded-Proto": "https"}


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "30")),
    # Reproducible in CI; set FUZZ_RANDOM=1 to explore new inputs locally.
    derandomize=not os.environ.get("FUZZ_RANDOM"),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_operation_answers_within_its_schema(case, content):
    case.call_and_validate(headers=headers(new_key()), checks=checks_for(case, CHECKS))


class Sequences(schema.as_state_machine()):  # type: ignore[misc]
    """Each sequence runs as one new learner, following the links schemathesis infers."""

    def setup(self) -> None:
        # Each sequence starts from the same data and leaves nothing behind, so Hypothesis can
        # replay one exactly.
        self.scenario = transaction.atomic()
        self.scenario.__enter__()
        cache.clear()
        self.key = new_key()

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self.scenario.__exit__(None, None, None)

    def get_call_kwargs(self, case: Any) -> dict[str, Any]:
        return {"headers": headers(new_key() if case.path in SIGN_OUTS else self.key)}

    def validate_response(
        self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
    ) -> None:
        case.validate_response(
            response,
            checks=checks_for(case, SEQUENCE_CHECKS),
            transport_kwargs=kwargs or None,
            recorder=self.recorder,
        )


def test_sequences_of_linked_operations_answer_within_the_schema(content):
    assert schema.statistic.transitions.selected > 50  # links were found to follow

    Sequences.run(
        settings=settings(
            max_examples=int(os.environ.get("FUZZ_SEQUENCES", "30")),
            stateful_step_count=6,
            derandomize=not os.environ.get("FUZZ_RANDOM"),
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
