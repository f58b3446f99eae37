"""GET /api/v1/plans/: Free and Pro, what each opens, whether billing is set up, and the
caller's own plan."""

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import entitlements
from course import plans

_Lesson = inline_serializer(
    "PlanLesson",
    {
        "course": serializers.CharField(),
        "lesson": serializers.CharField(),
        "title": serializers.CharField(),
        "free_sections": serializers.ListField(child=serializers.CharField()),
        "pro_sections": serializers.ListField(child=serializers.CharField()),
    },
)
_Holding = inline_serializer(
    "ProSource",
    {
        "source": serializers.ChoiceField(
            choices=["subscription", "licence", "classroom", "staff"]
        ),
        "ends_at": serializers.DateTimeField(allow_null=True, help_text="null: while it lasts."),
    },
)


class PlansView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={
            200: inline_serializer(
                "Plans",
                {
                    "free": serializers.ListField(child=serializers.CharField()),
                    "pro": serializers.ListField(child=serializers.CharField()),
                    "pro_lessons": serializers.ListField(child=_Lesson),
                    "billing_configured": serializers.BooleanField(),
                    "you": inline_serializer(
                        "YourPlan",
                        {
                            "plan": serializers.ChoiceField(choices=["free", "pro"]),
                            "pro_until": serializers.DateTimeField(allow_null=True),
                            "sources": serializers.ListField(child=_Holding),
                            "subscribed": serializers.BooleanField(),
                        },
                        allow_null=True,
                    ),
                },
            )
        },
        summary="What Free and Pro give, and the caller's plan",
        operation_id="listPlans",
    )
    def get(self, request: Request) -> Response:
        user = request.user
        state = plans.subscription_state(user)
        you: dict[str, Any] | None = None
        if user.is_authenticated:
            you = {
                "plan": "pro" if entitlements.has_pro(user) else "free",
                "pro_until": entitlements.pro_until(user),
                "sources": [
                    {"source": h.source, "ends_at": h.ends_at} for h in plans.holdings(user)
                ],
                "subscribed": state["subscribed"],
            }
        return Response(
            {
                "free": list(plans.FREE),
                "pro": list(plans.PRO),
                "pro_lessons": [
                    {
                        "course": row["lesson"].course.slug,
                        "lesson": row["lesson"].slug,
                        "title": row["lesson"].title,
                        "free_sections": [s.title for s in row["free"]],
                        "pro_sections": [s.title for s in row["pro"]],
                    }
                    for row in plans.pro_lessons()
                ],
                "billing_configured": state["billing_configured"],
                "you": you,
            }
        )
