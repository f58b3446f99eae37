"""Paying for Pro: Stripe's signed events grant and end Pro exactly once, anything unsigned or
replayed changes nothing, and Checkout and the portal are asked for with the caller's ids.

Events are signed with the stripe library's own signing, so no network is needed; Checkout and
the portal talk to a stand-in for Stripe's API on this machine.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import pytest
import stripe
from django.utils import timezone

from accounts import entitlements
from accounts.models import BillingEvent, Grant, Notification, Subscription, User
from tests.conftest import assert_problem, closed_port
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "whsec_test_residual"
WEBHOOK = "/api/v1/billing/webhook/"


@pytest.fixture(autouse=True)
def _billing(settings: Any) -> None:
    settings.STRIPE_SECRET_KEY = "sk_test_residual"
    settings.STRIPE_WEBHOOK_SECRET = SECRET
    settings.STRIPE_PRICE_PRO = "price_pro_monthly"


def event(kind: str, obj: dict[str, Any], *, event_id: str, created: int | None = None) -> str:
    return json.dumps(
        {
            "id": event_id,
            "object": "event",
            "type": kind,
            "created": created or int(time.time()),
            "data": {"object": obj},
        }
    )


def deliver(api: Any, body: str, *, secret: str = SECRET, timestamp: int | None = None) -> Any:
    header = stripe.WebhookSignature.generate_signature_header(body, secret, timestamp=timestamp)
    return api.post(
        WEBHOOK,
        data=body.encode(),
        headers={"Stripe-Signature": header, "Content-Type": "application/json"},
    )


def checkout_completed(user: User, *, event_id: str = "evt_checkout") -> str:
    return event(
        "checkout.session.completed",
        {
            "id": "cs_test_1",
            "object": "checkout.session",
            "mode": "subscription",
            "payment_status": "paid",
            "client_reference_id": str(user.pk),
            "customer": "cus_1",
            "subscription": "sub_1",
            "metadata": {"user_id": str(user.pk)},
        },
        event_id=event_id,
    )


def subscription(
    user: User, *, status: str, period_end: datetime, kind: str, event_id: str, created: int
) -> str:
    return event(
        kind,
        {
            "id": "sub_1",
            "object": "subscription",
            "customer": "cus_1",
            "status": status,
            "metadata": {"user_id": str(user.pk)},
            "items": {"data": [{"current_period_end": int(period_end.timestamp())}]},
        },
        event_id=event_id,
        created=created,
    )


def test_a_completed_checkout_grants_pro_once_however_often_it_is_delivered(api):
    learner = UserFactory()
    body = checkout_completed(learner)

    responses = [deliver(api, body) for _ in range(4)]

    assert [r.status_code for r in responses] == [200] * 4
    assert [r.json()["duplicate"] for r in responses] == [False, True, True, True]
    assert Grant.objects.filter(user=learner, source="subscription").count() == 1
    assert BillingEvent.objects.filter(event_id="evt_checkout").count() == 1
    learner.refresh_from_db()
    assert entitlements.has_pro(learner)
    assert learner.pro_until < timezone.now() + timedelta(days=33)  # never open-ended


@pytest.mark.parametrize(
    "forgery",
    ["wrong secret", "no header", "body changed after signing", "signed too long ago", "garbage"],
)
def test_an_event_not_signed_by_stripe_is_400_and_changes_nothing(api, forgery):
    learner = UserFactory()
    body = checkout_completed(learner)
    if forgery == "wrong secret":
        response = deliver(api, body, secret="whsec_someone_else")
    elif forgery == "no header":
        response = api.post(WEBHOOK, data=body.encode())
    elif forgery == "body changed after signing":
        header = stripe.WebhookSignature.generate_signature_header(body, SECRET)
        response = api.post(
            WEBHOOK,
            data=body.replace("paid", "paid ").encode(),
            headers={"Stripe-Signature": header},
        )
    elif forgery == "signed too long ago":
        response = deliver(api, body, timestamp=int(time.time()) - 3600)
    else:
        response = api.post(WEBHOOK, data=b"\x00\xff{", headers={"Stripe-Signature": "t=1,v1=00"})

    problem = assert_problem(response, 400)
    assert problem["type"].endswith("/problems/bad-signature/")
    assert not BillingEvent.objects.exists()
    assert not Grant.objects.exists()
    learner.refresh_from_db()
    assert learner.pro_until is None


def test_a_signed_body_that_is_not_an_event_is_refused(api):
    response = deliver(api, json.dumps({"hello": "world"}))

    assert_problem(response, 400)
    assert not BillingEvent.objects.exists()


def test_the_subscription_decides_until_when_and_its_end_ends_pro(api):
    learner = UserFactory()
    deliver(api, checkout_completed(learner))
    now = int(time.time())
    period_end = (timezone.now() + timedelta(days=30)).replace(microsecond=0)

    updated = subscription(
        learner,
        status="active",
        period_end=period_end,
        kind="customer.subscription.updated",
        event_id="evt_upd",
        created=now + 1,
    )
    assert deliver(api, updated).status_code == 200
    learner.refresh_from_db()
    assert learner.pro_until == period_end
    assert Subscription.objects.get().current_period_end == period_end

    deleted = subscription(
        learner,
        status="canceled",
        period_end=period_end,
        kind="customer.subscription.deleted",
        event_id="evt_del",
        created=now + 2,
    )
    assert deliver(api, deleted).status_code == 200
    learner.refresh_from_db()
    assert not entitlements.has_pro(learner)
    assert Subscription.objects.get().status == "canceled"

    # An update Stripe made before the deletion, arriving after it, opens nothing again.
    late = subscription(
        learner,
        status="active",
        period_end=period_end + timedelta(days=30),
        kind="customer.subscription.updated",
        event_id="evt_late",
        created=now,
    )
    assert deliver(api, late).status_code == 200
    learner.refresh_from_db()
    assert not entitlements.has_pro(learner)
    assert BillingEvent.objects.get(event_id="evt_late").outcome.startswith("ignored")


def test_a_failed_payment_keeps_pro_to_the_period_end_and_tells_the_learner(api):
    learner = UserFactory()
    deliver(api, checkout_completed(learner))
    until = User.objects.get(pk=learner.pk).pro_until
    failed = event(
        "invoice.payment_failed",
        {"id": "in_1", "object": "invoice", "subscription": "sub_1", "customer": "cus_1"},
        event_id="evt_failed",
    )

    assert deliver(api, failed).status_code == 200
    assert deliver(api, failed).json()["duplicate"] is True

    learner.refresh_from_db()
    assert learner.pro_until == until
    notices = Notification.objects.filter(user=learner, kind=Notification.Kind.BILLING)
    assert notices.count() == 1
    assert "did not go through" in notices.get().title


def test_an_event_of_a_type_we_do_not_handle_is_kept(api):
    body = event("customer.created", {"id": "cus_9", "object": "customer"}, event_id="evt_other")

    assert deliver(api, body).status_code == 200

    assert BillingEvent.objects.get(event_id="evt_other").payload["type"] == "customer.created"


def test_a_checkout_naming_someone_we_do_not_know_grants_nothing(api):
    ghost = UserFactory()
    body = checkout_completed(ghost)
    ghost.delete()

    assert deliver(api, body).status_code == 200
    assert not Grant.objects.exists()


def test_without_keys_checkout_is_503_and_the_plans_page_says_so(api, client, settings):
    settings.STRIPE_SECRET_KEY = ""
    learner = UserFactory()
    api.authenticate(learner)

    problem = assert_problem(api.post("/api/v1/billing/checkout/"), 503)
    assert problem["type"].endswith("/problems/billing-not-configured/")
    assert_problem(api.post("/api/v1/billing/portal/"), 503)

    client.force_login(learner)
    page = client.get("/plans/", secure=True)
    assert page.status_code == 200
    assert "Billing is not set up on this site" in page.content.decode()
    assert (
        client.post("/plans/checkout/", secure=True).status_code == 302
    )  # back to the page, nothing broke


# --- Checkout and the portal, against a stand-in for Stripe's API ------------------------


class StripeStandIn(BaseHTTPRequestHandler):
    received: list[tuple[str, dict[str, list[str]]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode())
        StripeStandIn.received.append((self.path, form))
        kind = "checkout" if "checkout" in self.path else "portal"
        body = json.dumps(
            {
                "id": f"{kind}_1",
                "object": "checkout.session" if kind == "checkout" else "billing_portal.session",
                "url": f"https://stripe.example/{kind}/1",
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stripe_api(settings: Any) -> Iterator[list[tuple[str, dict[str, list[str]]]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StripeStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    StripeStandIn.received = []
    settings.STRIPE_API_BASE = f"http://127.0.0.1:{server.server_address[1]}"
    yield StripeStandIn.received
    server.shutdown()
    server.server_close()


def test_checkout_is_made_for_the_caller_and_the_portal_for_their_customer(api, stripe_api):
    learner = UserFactory()
    api.authenticate(learner)

    assert_problem(api.post("/api/v1/billing/portal/"), 404)  # never subscribed
    response = api.post("/api/v1/billing/checkout/")

    assert response.status_code == 200, response.text
    assert response.json() == {"url": "https://stripe.example/checkout/1"}
    path, form = stripe_api[-1]
    assert path == "/v1/checkout/sessions"
    assert form["client_reference_id"] == [str(learner.pk)]
    assert form["mode"] == ["subscription"]
    assert form["line_items[0][price]"] == ["price_pro_monthly"]

    deliver(api, checkout_completed(learner))
    assert_problem(api.post("/api/v1/billing/checkout/"), 409)  # no second subscription
    portal = api.post("/api/v1/billing/portal/")
    assert portal.json() == {"url": "https://stripe.example/portal/1"}
    assert stripe_api[-1][1]["customer"] == ["cus_1"]


def test_the_plans_page_sends_a_learner_to_checkout(client, stripe_api):
    client.force_login(UserFactory())

    response = client.post("/plans/checkout/", secure=True)

    assert response.status_code == 303
    assert response["Location"] == "https://stripe.example/checkout/1"


def test_stripe_unreachable_is_502_and_nothing_changes(api, settings):
    settings.STRIPE_API_BASE = f"http://127.0.0.1:{closed_port()}"
    learner = UserFactory()
    api.authenticate(learner)

    problem = assert_problem(api.post("/api/v1/billing/checkout/"), 502)

    assert problem["type"].endswith("/problems/billing-unavailable/")
    assert not Subscription.objects.exists()


def test_period_ends_past_any_date_are_not_trusted():
    from accounts.billing import _moment

    assert _moment(int(datetime(2030, 1, 1, tzinfo=UTC).timestamp())) is not None
    assert _moment(10**15) is None
    assert _moment(True) is None
    assert _moment("1700000000") is None
