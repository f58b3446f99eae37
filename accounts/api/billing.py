"""Getting Pro over the API: a licence code, Stripe Checkout and portal, and Stripe's webhook."""

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import BaseParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import billing, entitlements, licences
from config.problems import Problem
from config.throttles import ScopedRateThrottle

NOT_CONFIGURED = Problem(
    status_code=503,
    slug="billing-not-configured",
    title="Billing is not set up here",
    detail="This Residual takes no payments. Pro comes from a licence code or a class with "
    "Pro seats.",
)
UNAVAILABLE = Problem(
    status_code=502,
    slug="billing-unavailable",
    title="The payment provider did not answer",
    detail="Stripe could not be reached or refused the request; nothing was charged. Try "
    "again in a minute.",
)


class PlanStateSerializer(serializers.Serializer[Any]):
    plan = serializers.ChoiceField(choices=["free", "pro"])
    pro_until = serializers.DateTimeField(
        allow_null=True,
        help_text="When Pro ends; null on the free plan; 9999-12-31T00:00:00Z for no end.",
    )


def plan_state(user: Any) -> dict[str, Any]:
    return {
        "plan": "pro" if entitlements.has_pro(user) else "free",
        "pro_until": entitlements.pro_until(user),
    }


class RedeemSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(
        max_length=64, help_text="The licence code as printed; dashes, spaces and case are ignored."
    )


class RedeemView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "licences"

    @extend_schema(
        request=RedeemSerializer,
        responses={
            200: inline_serializer(
                "Redeemed",
                {
                    "plan": serializers.ChoiceField(choices=["free", "pro"]),
                    "pro_until": serializers.DateTimeField(allow_null=True),
                    "days": serializers.IntegerField(help_text="Days of Pro the code gave."),
                },
            ),
            400: OpenApiResponse(description="Unknown, used or expired code (`licence-refused`)."),
        },
        summary="Redeem a licence code for days of Pro",
        operation_id="redeemLicence",
    )
    def post(self, request: Request) -> Response:
        body = RedeemSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            redeemed = licences.redeem(user=request.user, raw_code=body.validated_data["code"])
        except licences.LicenceRefused as refused:
            raise Problem.invalid(
                field="code",
                code=refused.code,
                message=refused.message,
                slug="licence-refused",
                title="The licence code gives nothing",
            ) from refused
        return Response({**plan_state(request.user), "days": redeemed.days})


class UrlSerializer(serializers.Serializer[Any]):
    url = serializers.URLField(help_text="Stripe's page to send the learner to.")


def _site(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


class CheckoutView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "billing"

    @extend_schema(
        request=None,
        responses={
            200: UrlSerializer,
            409: OpenApiResponse(description="The caller has a subscription already."),
            503: OpenApiResponse(description="Billing is not set up (`billing-not-configured`)."),
        },
        summary="Start a Stripe Checkout for a Pro subscription",
        operation_id="startCheckout",
    )
    def post(self, request: Request) -> Response:
        try:
            url = billing.checkout_url(
                user=request.user,
                success_url=_site("/plans/?checkout=done"),
                cancel_url=_site("/plans/"),
            )
        except billing.BillingNotConfigured as error:
            raise NOT_CONFIGURED from error
        except billing.AlreadySubscribed as error:
            raise Problem(
                status_code=409,
                slug="conflict",
                title="Already subscribed",
                detail="You have a Pro subscription; change or cancel it in the billing portal.",
            ) from error
        except billing.BillingUnavailable as error:
            raise UNAVAILABLE from error
        return Response({"url": url})


class PortalView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "billing"

    @extend_schema(
        request=None,
        responses={
            200: UrlSerializer,
            404: OpenApiResponse(description="The caller has never subscribed."),
            503: OpenApiResponse(description="Billing is not set up (`billing-not-configured`)."),
        },
        summary="Open Stripe's customer portal to change or cancel the subscription",
        operation_id="openBillingPortal",
    )
    def post(self, request: Request) -> Response:
        try:
            url = billing.portal_url(user=request.user, return_url=_site("/plans/"))
        except billing.BillingNotConfigured as error:
            raise NOT_CONFIGURED from error
        except billing.BillingUnavailable as error:
            raise UNAVAILABLE from error
        if url is None:
            raise Problem(
                status_code=404,
                slug="not-found",
                title="No subscription",
                detail="You have never subscribed, so there is no billing to manage.",
            )
        return Response({"url": url})


class RawBodyParser(BaseParser):
    """Stripe signs the exact bytes; the view reads them itself."""

    media_type = "*/*"

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        return None


class WebhookView(APIView):
    """Stripe calls this. No session or token: the signature is the authentication."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    parser_classes = [RawBodyParser]

    @extend_schema(
        request={"application/json": {"type": "object", "description": "A Stripe event."}},
        responses={
            200: inline_serializer(
                "WebhookReceived",
                {
                    "received": serializers.CharField(help_text="The event's id."),
                    "duplicate": serializers.BooleanField(
                        help_text="True when this event id was received before: nothing changed."
                    ),
                },
            ),
            400: OpenApiResponse(
                description="Not signed by Stripe with our secret (`bad-signature`)."
            ),
            503: OpenApiResponse(description="Billing is not set up (`billing-not-configured`)."),
        },
        summary="Receive a signed Stripe event",
        operation_id="receiveBillingEvent",
    )
    def post(self, request: Request) -> Response:
        try:
            received = billing.receive(
                payload=request.body, signature=request.headers.get("Stripe-Signature")
            )
        except billing.BillingNotConfigured as error:
            raise NOT_CONFIGURED from error
        except billing.BadSignature as error:
            raise Problem(
                status_code=400,
                slug="bad-signature",
                title="The event's signature does not check out",
                detail="This event does not carry a valid, recent Stripe signature of its body.",
            ) from error
        return Response({"received": received.event_id, "duplicate": received.duplicate})
