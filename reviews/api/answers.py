"""Answering a question: graded, stored once (an idempotency key or client id makes a repeat
return the first response), and explained; looking at the answer first (a reveal); reading a
past answer again."""

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import Problem
from config.throttles import ScopedRateThrottle
from quizzes import selectors as bank
from quizzes.api.views import question_or_404
from quizzes.errors import AnswerRefused
from reviews import idempotency, reveals, selectors, services
from reviews.api.serializers import (
    AnswerInSerializer,
    AnswerOutSerializer,
    RevealInSerializer,
    RevealOutSerializer,
)
from reviews.api.sync_items import answer_submitted
from reviews.feedback import past_answer_result

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (at most 255 characters); a repeat returns the first response.",
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
        operation_id="submitAnswer",
    )
    def post(self, request: Request, question_id: int) -> Response:
        # Checked as plain data, as the serializer would; the serializer says what is wrong.
        submitted = answer_submitted(request.data)
        if submitted is None:
            body = AnswerInSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            submitted = services.Submitted(**body.validated_data)
        key = idempotency_key(request, submitted.client_id)
        question = question_or_404(question_id, user=request.user, selector=bank.question_to_answer)
        try:
            result = idempotency.idempotent(
                user=request.user,
                key=key,
                # Only a named request is compared with a repeat of it.
                fingerprint=""
                if key is None
                else idempotency.request_fingerprint(
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


class RevealView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "answers"

    @extend_schema(
        request=RevealInSerializer,
        responses={201: RevealOutSerializer},
        operation_id="revealAnswer",
        summary="Show the answer before answering: recorded as a reveal, which the next "
        "review follows",
        description="Free text: read the model answer, then rate your own answer against it, "
        "naming this reveal. A machine-graded question: the learner's next review of it "
        "counts as Again.",
    )
    def post(self, request: Request, question_id: int) -> Response:
        body = RevealInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        question = question_or_404(question_id, user=request.user, selector=bank.question_to_answer)
        try:
            revealed = reveals.reveal_create(
                user=request.user,
                question=question,
                variant=body.validated_data.get("variant"),
                now=timezone.now(),
            )
        except AnswerRefused as refused:
            raise refusal_problem(refused) from None
        return Response(revealed.shown, status=201)


class AnswerDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: AnswerOutSerializer},
        summary="One of the caller's past answers, with its feedback",
        operation_id="getAnswer",
    )
    def get(self, request: Request, answer_id: int) -> Response:
        answer = selectors.answer_of(user=request.user, answer_id=answer_id)
        if answer is None:
            raise Problem(
                status_code=404,
                slug="not-found",
                title="Not found",
                detail=f"You have no answer {answer_id}.",
            )
        return Response(past_answer_result(answer))


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
    slugs = {
        422: "unprocessable",
        409: "conflict",
        400: "validation-error",
        503: "code-unavailable",
    }
    titles = {
        "unreadable_number": "The answer could not be read as a number",
        "idempotency_key_reused": "Idempotency key reused",
        "request_in_progress": "The same request is still in progress",
        "code_unavailable": "Code cannot be run here just now",
    }
    return Problem.invalid(
        field=refused.field,
        code=refused.code,
        message=refused.message,
        status_code=refused.status,
        slug=refused.code.replace("_", "-") if refused.code in titles else slugs[refused.status],
        title=titles.get(refused.code, "The request has invalid fields"),
    )
