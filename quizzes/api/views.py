from collections.abc import Callable
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import Problem
from config.throttles import ScopedRateThrottle
from quizzes import selectors, services
from quizzes.api import shapes
from quizzes.api.serializers import (
    AnswerInSerializer,
    AnswerOutSerializer,
    QuestionDetailQuerySerializer,
    QuestionDetailSerializer,
    QuestionSummarySerializer,
)
from quizzes.errors import AnswerRefused
from quizzes.filters import QuestionFilter
from quizzes.models import Question

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (at most 255 characters); a repeat returns the first response.",
)


@extend_schema(summary="The question bank, filtered")
class QuestionListView(generics.ListAPIView[Question]):
    permission_classes = [IsAuthenticated]
    serializer_class = QuestionSummarySerializer
    filterset_class = QuestionFilter

    def get_queryset(self) -> Any:
        return selectors.question_list()


class QuestionDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[QuestionDetailQuerySerializer],
        responses={200: QuestionDetailSerializer},
        summary="One question; a generated one comes with a fresh variant (or ?seed=)",
    )
    def get(self, request: Request, question_id: int) -> Response:
        query = QuestionDetailQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        question = _question_or_404(question_id)
        return Response(
            shapes.question_detail(
                question, user_id=request.user.pk, seed=query.validated_data.get("seed")
            )
        )


class AnswerCreateView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "answers"

    @extend_schema(
        parameters=[IDEMPOTENCY_HEADER],
        request=AnswerInSerializer,
        responses={
            201: AnswerOutSerializer,
            409: OpenApiResponse(description="The same idempotency key is still being processed."),
            422: OpenApiResponse(
                description="Unreadable number, or an idempotency key reused for another body."
            ),
        },
        summary="Answer a question: graded, stored once, explained",
    )
    def post(self, request: Request, question_id: int) -> Response:
        body = AnswerInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        key = idempotency_key(request, body.validated_data.get("client_id"))
        question = _question_or_404(question_id, selector=selectors.question_to_answer)
        submitted = services.Submitted(**body.validated_data)
        try:
            result = services.idempotent(
                user=request.user,
                key=key,
                fingerprint=services.request_fingerprint(
                    method="POST", path=request.path, body=request.data
                ),
                action=lambda: services.answer_submit(
                    user=request.user, question=question, submitted=submitted, now=timezone.now()
                ),
            )
        except AnswerRefused as refused:
            raise refusal_problem(refused) from None
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(result.body, status=result.status_code, headers=headers)


def _question_or_404(
    question_id: int, selector: Callable[..., Question] = selectors.question_detail
) -> Question:
    try:
        return selector(question_id=question_id)
    except Question.DoesNotExist:
        raise Problem(
            status_code=404,
            slug="not-found",
            title="Not found",
            detail=f"There is no question {question_id}.",
        ) from None


def idempotency_key(request: Request, client_id: Any) -> str | None:
    header = request.headers.get("Idempotency-Key")
    if header is not None:
        if not 1 <= len(header) <= 255 or not header.isprintable():
            raise Problem.invalid(
                field="Idempotency-Key",
                code="invalid",
                message="Idempotency-Key must be 1 to 255 printable characters, such as a UUID.",
            )
        return header
    return f"client:{client_id}" if client_id else None


def refusal_problem(refused: AnswerRefused) -> Problem:
    slugs = {422: "unprocessable", 409: "conflict", 400: "validation-error"}
    titles = {
        "unreadable_number": "The answer could not be read as a number",
        "idempotency_key_reused": "Idempotency key reused",
        "request_in_progress": "The same request is still in progress",
    }
    return Problem.invalid(
        field=refused.field,
        code=refused.code,
        message=refused.message,
        status_code=refused.status,
        slug=refused.code.replace("_", "-") if refused.code in titles else slugs[refused.status],
        title=titles.get(refused.code, "The request has invalid fields"),
    )
