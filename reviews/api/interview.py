"""Practising an interview question over the API: the learner answered it in their own words,
looked at the model answer and ticked the key points their answer covered; the ticks suggest
a rating, which they may move a step, and the answer is a review that schedules the card."""

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import Problem
from config.throttles import ScopedRateThrottle
from quizzes import interview as bank
from quizzes.errors import AnswerRefused
from reviews import idempotency
from reviews import interview as practice
from reviews.api.answers import IDEMPOTENCY_HEADER, idempotency_key, refusal_problem
from reviews.api.serializers import AnswerOutSerializer, PracticeInSerializer


class PracticeView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "answers"

    @extend_schema(
        parameters=[IDEMPOTENCY_HEADER],
        request=PracticeInSerializer,
        responses={
            201: AnswerOutSerializer,
            404: OpenApiResponse(description="No question of the bank has this key."),
            409: OpenApiResponse(description="The same idempotency key is still being processed."),
            422: OpenApiResponse(
                description="A question answered with a number (answer it at "
                "/api/v1/questions/{id}/answers/), or an idempotency key reused for another "
                "body."
            ),
        },
        summary="Practise an interview question: the key points covered suggest the rating, "
        "and the question joins the review schedule",
        description="Ticking every key point suggests good, more than half hard, fewer again; "
        "`rating` may move it one step either way. The answer is a review: its card is "
        "scheduled, and `review` says when it comes back. Without `reveal`, the model answer "
        "counts as looked at now.",
        operation_id="practiseInterviewQuestion",
    )
    def post(self, request: Request, key: str) -> Response:
        body = PracticeInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data: dict[str, Any] = body.validated_data
        question = bank.question(key)
        if question is None:
            raise Problem(
                status_code=404,
                slug="not-found",
                title="Not found",
                detail="There is no question of the interview bank with this key.",
            )
        client_id = data.get("client_id")
        key_given = idempotency_key(request, client_id)
        try:
            ticks = practice.ticked(
                question, covered=data["covered_key_points"], rating=data.get("rating")
            )
            result = idempotency.idempotent(
                user=request.user,
                key=key_given,
                fingerprint=""
                if key_given is None
                else idempotency.request_fingerprint(
                    method="POST", path=request.path, body=request.data
                ),
                action=lambda: practice.interview_practice(
                    user=request.user,
                    question=question,
                    ticks=ticks,
                    response=data.get("response", ""),
                    reveal=data.get("reveal"),
                    duration_ms=data.get("duration_ms"),
                    client_id=client_id,
                    now=timezone.now(),
                ),
            )
        except AnswerRefused as refused:
            raise refusal_problem(refused) from None
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(result.body, status=result.status_code, headers=headers)
