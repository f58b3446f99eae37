"""Paying for Pro with Stripe: Checkout to subscribe, the customer portal to change or cancel,
and the webhook whose signed events are the only thing that grants or ends subscription Pro.

Every event with a valid signature is kept (`BillingEvent`), once per event id, in the same
transaction as what it changed: a replayed event finds its id taken and changes nothing, and
an event whose handling fails leaves no row, so Stripe's retry is handled afresh. Events about
a subscription that arrive older than the last one applied to it are kept and ignored.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import stripe
from django.conf import settings
from django.db import IntegrityError, transaction

from accounts import entitlements, services
from accounts.models import BillingEvent, Grant, Notification, Subscription, User

logger = logging.getLogger(__name__)

# Stripe's subscription states in which the subscriber keeps Pro to the end of the period
# (past_due: Stripe is retrying a failed payment).
KEEPS_PRO = frozenset({"active", "trialing", "past_due"})

# Until a subscription's own event says when its period ends, a new subscription's Pro runs
# this long: one monthly period and a day to spare, never open-ended.
FIRST_PERIOD = timedelta(days=32)


class BillingNotConfigured(Exception):
    pass


class AlreadySubscribed(Exception):
    """The user has a subscription that still gives Pro: a second one would charge twice."""


class BillingUnavailable(Exception):
    """Stripe could not be reached, or refused the request."""


class BadSignature(Exception):
    pass


def configured() -> bool:
    return bool(
        settings.STRIPE_SECRET_KEY and settings.STRIPE_WEBHOOK_SECRET and settings.STRIPE_PRICE_PRO
    )


def _client() -> stripe.StripeClient:
    if not configured():
        raise BillingNotConfigured
    if settings.STRIPE_API_BASE:
        return stripe.StripeClient(
            settings.STRIPE_SECRET_KEY,
            base_addresses={"api": settings.STRIPE_API_BASE},
            max_network_retries=0,
        )
    return stripe.StripeClient(settings.STRIPE_SECRET_KEY, max_network_retries=1)


def customer_id(user: User) -> str | None:
    """The user's Stripe customer, from their latest subscription."""
    return (
        Subscription.objects.filter(user=user)
        .order_by("-updated_at", "-pk")
        .values_list("stripe_customer_id", flat=True)
        .first()
    )


def subscribed(user: User) -> bool:
    """Whether the user has a subscription that still gives Pro (so not a second one)."""
    return Subscription.objects.filter(user=user, status__in=KEEPS_PRO).exists()


def checkout_url(*, user: User, success_url: str, cancel_url: str) -> str:
    """A Stripe Checkout page for a Pro subscription, tied to this user. Raises
    BillingNotConfigured, AlreadySubscribed or BillingUnavailable."""
    client = _client()
    if subscribed(user):
        raise AlreadySubscribed
    params: dict[str, Any] = {
        "mode": "subscription",
        "line_items": [{"price": settings.STRIPE_PRICE_PRO, "quantity": 1}],
        "client_reference_id": str(user.pk),
        "subscription_data": {"metadata": {"user_id": str(user.pk)}},
        "metadata": {"user_id": str(user.pk)},
        "success_url": success_url,
        "cancel_url": cancel_url,
    }
    customer = customer_id(user)
    if customer:
        params["customer"] = customer
    elif user.email:
        params["customer_email"] = user.email
    try:
        session = client.v1.checkout.sessions.create(params=params)  # type: ignore[arg-type]
    except stripe.StripeError as error:
        logger.warning("Stripe refused a checkout session: %s", error)
        raise BillingUnavailable from error
    return str(session.url)


def portal_url(*, user: User, return_url: str) -> str | None:
    """Stripe's customer portal for the user's subscription; None when they have never had
    one (there is nothing to manage). Raises BillingNotConfigured or BillingUnavailable."""
    client = _client()
    customer = customer_id(user)
    if customer is None:
        return None
    try:
        session = client.v1.billing_portal.sessions.create(
            params={"customer": customer, "return_url": return_url}
        )
    except stripe.StripeError as error:
        logger.warning("Stripe refused a portal session: %s", error)
        raise BillingUnavailable from error
    return str(session.url)


# --- the webhook ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    event_id: str
    type: str
    duplicate: bool
    outcome: str


def receive(*, payload: bytes, signature: str | None, now: datetime | None = None) -> Received:
    """Verifies, keeps and applies one event. Raises BadSignature for anything Stripe did not
    sign with our secret in the last few minutes (and for a body that is not an event)."""
    if not settings.STRIPE_WEBHOOK_SECRET:
        raise BillingNotConfigured
    try:
        text = payload.decode("utf-8")
        stripe.WebhookSignature.verify_header(
            text,
            signature or "",
            settings.STRIPE_WEBHOOK_SECRET,
            settings.STRIPE_WEBHOOK_TOLERANCE,
        )
        event = json.loads(text)
    except (stripe.SignatureVerificationError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise BadSignature(str(e)) from e
    if not (
        isinstance(event, dict)
        and isinstance(event.get("id"), str)
        and isinstance(event.get("type"), str)
        and isinstance(event.get("data"), dict)
        and isinstance(event["data"].get("object"), dict)
    ):
        raise BadSignature("the body is not a Stripe event")
    created = _moment(event.get("created")) or now or datetime.now(UTC)
    try:
        with transaction.atomic():
            record = BillingEvent.objects.create(
                event_id=event["id"][:255],
                type=event["type"][:100],
                created_at=created,
                payload=event,
            )
            outcome = _apply(event, created=created)
            record.outcome = outcome[:200]
            record.save(update_fields=["outcome"])
    except IntegrityError:
        if not BillingEvent.objects.filter(event_id=event["id"][:255]).exists():
            raise
        return Received(event_id=event["id"], type=event["type"], duplicate=True, outcome="")
    return Received(event_id=event["id"], type=event["type"], duplicate=False, outcome=outcome)


def _moment(value: Any) -> datetime | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 253_402_300_799:
        return datetime.fromtimestamp(value, tz=UTC)
    return None


def _id(value: Any) -> str | None:
    """An id Stripe sent either as a string or as an expanded object."""
    if isinstance(value, str) and value:
        return value[:255]
    if isinstance(value, dict):
        return _id(value.get("id"))
    return None


def _user(*candidates: Any) -> User | None:
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.isdigit() and len(candidate) < 19:
            user = User.objects.filter(pk=int(candidate)).first()
            if user is not None:
                return user
    return None


def _period_end(subscription: dict[str, Any]) -> datetime | None:
    """When the paid period ends: on the subscription, or (newer API versions) its items."""
    end = _moment(subscription.get("current_period_end"))
    if end is None:
        items = subscription.get("items")
        data = items.get("data") if isinstance(items, dict) else None
        if isinstance(data, list):
            ends = [_moment(i.get("current_period_end")) for i in data if isinstance(i, dict)]
            end = max((e for e in ends if e is not None), default=None)
    return end


def _apply(event: dict[str, Any], *, created: datetime) -> str:
    kind, obj = event["type"], event["data"]["object"]
    if kind == "checkout.session.completed":
        return _checkout_completed(obj, created=created)
    if kind in {"customer.subscription.created", "customer.subscription.updated"}:
        return _subscription_changed(obj, created=created, deleted=False)
    if kind == "customer.subscription.deleted":
        return _subscription_changed(obj, created=created, deleted=True)
    if kind == "invoice.payment_failed":
        return _payment_failed(obj, event_id=event["id"])
    return "kept; nothing to do for this type"


def _checkout_completed(session: dict[str, Any], *, created: datetime) -> str:
    if session.get("mode") != "subscription":
        return "ignored: not a subscription checkout"
    if session.get("payment_status") not in {"paid", "no_payment_required"}:
        return "waiting: the payment has not gone through yet"
    metadata = session.get("metadata") if isinstance(session.get("metadata"), dict) else {}
    user = _user(session.get("client_reference_id"), (metadata or {}).get("user_id"))
    subscription_id, customer = _id(session.get("subscription")), _id(session.get("customer"))
    if user is None or subscription_id is None or customer is None:
        return "ignored: no user or subscription named"
    expanded = session.get("subscription")
    end = _period_end(expanded) if isinstance(expanded, dict) else None
    subscription, made = Subscription.objects.select_for_update().get_or_create(
        stripe_subscription_id=subscription_id,
        defaults={
            "user": user,
            "stripe_customer_id": customer,
            "status": "active",
            "current_period_end": end,
            "event_created_at": created,
        },
    )
    if not made:
        # A subscription event came first and said more; it stands.
        return f"subscription {subscription_id} known already"
    _grant(subscription, end or created + FIRST_PERIOD)
    return f"Pro for user {user.pk} from subscription {subscription_id}"


def _subscription_changed(sub: dict[str, Any], *, created: datetime, deleted: bool) -> str:
    subscription_id, customer = _id(sub.get("id")), _id(sub.get("customer"))
    if subscription_id is None or customer is None:
        return "ignored: no subscription named"
    status = "canceled" if deleted else str(sub.get("status") or "")[:32]
    end = _period_end(sub)
    subscription = (
        Subscription.objects.select_for_update()
        .filter(stripe_subscription_id=subscription_id)
        .first()
    )
    if subscription is None:
        metadata = sub.get("metadata") if isinstance(sub.get("metadata"), dict) else {}
        user = _user((metadata or {}).get("user_id"))
        if user is None:
            return "ignored: a subscription of no user of ours"
        subscription = Subscription(
            user=user, stripe_subscription_id=subscription_id, stripe_customer_id=customer
        )
    elif created < subscription.event_created_at:
        return "ignored: older than the last event applied"
    subscription.status = status
    subscription.current_period_end = end or subscription.current_period_end
    subscription.event_created_at = created
    subscription.save()
    if status in KEEPS_PRO:
        _grant(subscription, subscription.current_period_end or created + FIRST_PERIOD)
        return f"Pro for user {subscription.user_id} to {subscription.current_period_end}"
    entitlements.grant_end(
        user_id=subscription.user_id,
        source=Grant.Source.SUBSCRIPTION,
        reference=subscription_id,
    )
    return f"Pro from {subscription_id} ended ({status})"


def _grant(subscription: Subscription, ends_at: datetime) -> None:
    entitlements.grant_add(
        user_id=subscription.user_id,
        source=Grant.Source.SUBSCRIPTION,
        reference=subscription.stripe_subscription_id,
        ends_at=ends_at,
        note="Stripe subscription",
    )


def _payment_failed(invoice: dict[str, Any], *, event_id: str) -> str:
    parent = invoice.get("parent") if isinstance(invoice.get("parent"), dict) else {}
    details = (parent or {}).get("subscription_details")
    subscription_id = _id(invoice.get("subscription")) or (
        _id(details.get("subscription")) if isinstance(details, dict) else None
    )
    subscription = (
        Subscription.objects.filter(stripe_subscription_id=subscription_id).first()
        if subscription_id
        else None
    )
    if subscription is None:
        return "ignored: an invoice of no subscription of ours"
    until = subscription.current_period_end
    services.notification_create(
        user_id=subscription.user_id,
        kind=Notification.Kind.BILLING,
        key=f"billing:{event_id}"[:80],
        title="Your payment for Pro did not go through",
        body=(
            "Stripe could not take the payment for your Pro subscription and will try again. "
            + (f"Pro stays open until {until:%d %B %Y}. " if until else "")
            + "You can change the card in the billing portal, from the Plans page."
        ),
        email=True,
    )
    return f"payment failed for {subscription_id}; the learner is told"
