"""Coding questions over the API: send code (to run the visible examples, or to submit it for
the hidden tests too), then poll the submission for its tests' results as they come."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import Problem
from config.throttles import ScopedRateThrottle
from quizzes import selectors as bank
from quizzes.api.views import question_or_404
from quizzes.coding import MAX_SOURCE
from quizzes.errors import AnswerRefused
from reviews import code
from reviews.api.answers import refusal_problem
from reviews.api.serializers import ReviewSummarySerializer
from reviews.models import CodeSubmission


class SubmissionInSerializer(serializers.Serializer[Any]):
    source = serializers.CharField(
        max_length=MAX_SOURCE,
        trim_whitespace=False,
        allow_blank=False,
        help_text="The whole Python source: it defines the question's function.",
    )
    run = serializers.ChoiceField(
        choices=CodeSubmission.Run.choices,
        default=CodeSubmission.Run.SUBMIT,
        error_messages={"invalid_choice": "Run the examples or submit: examples or submit."},
        help_text="examples: the visible examples only (no review); submit: every test, and "
        "the card is reviewed with the share that passed.",
    )
    client_id = serializers.UUIDField(
        required=False, help_text="Sent again, the same submission comes back; none is made."
    )


class TestResultSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="The case, as 'example 1' or 'hidden 3: ...'.")
    passed = serializers.BooleanField()
    message = serializers.CharField(
        help_text="What was wrong (the shape, the largest error and where, an exception's last "
        "line, timed out, out of memory); a hidden case's expected value is never in it."
    )
    hidden = serializers.BooleanField()


class SubmissionOutSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    question = serializers.IntegerField()
    run = serializers.ChoiceField(choices=CodeSubmission.Run.choices)
    status = serializers.ChoiceField(choices=CodeSubmission.Status.choices)
    tests = TestResultSerializer(many=True, help_text="Each case's result, as they come.")
    passed = serializers.IntegerField()
    score = serializers.FloatField(
        allow_null=True, help_text="The share of cases passed, once done; null before."
    )
    message = serializers.CharField(allow_blank=True, help_text="Why it ended in error.")
    review = ReviewSummarySerializer(
        allow_null=True, help_text="A submission's review of the card, once done."
    )
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    solution = serializers.CharField(
        required=False, help_text="The model solution, once a submission is done."
    )


class SubmissionCreateView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "code"

    @extend_schema(
        request=SubmissionInSerializer,
        responses={
            202: SubmissionOutSerializer,
            422: OpenApiResponse(description="Not a coding question."),
            503: OpenApiResponse(description="Code cannot be run on this server (no sandbox)."),
        },
        summary="Send code for a coding question: stored, then run in the sandbox; poll it",
        operation_id="submitCode",
    )
    def post(self, request: Request, question_id: int) -> Response:
        body = SubmissionInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        question = question_or_404(question_id, user=request.user, selector=bank.question_to_answer)
        try:
            with transaction.atomic():
                submission = code.code_submit(
                    user=request.user,
                    question=question,
                    source=data["source"],
                    run=data["run"],
                    client_id=data.get("client_id"),
                    now=timezone.now(),
                )
        except IntegrityError:  # the same client_id twice at once: the first one stands
            submission = CodeSubmission.objects.get(
                user=request.user, client_id=data.get("client_id")
            )
        except AnswerRefused as refused:
            raise refusal_problem(refused) from None
        submission.refresh_from_db()
        location = f"/api/v1/code/submissions/{submission.pk}/"
        return Response(
            code.submission_shape(submission), status=202, headers={"Location": location}
        )


class SubmissionDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: SubmissionOutSerializer},
        summary="A code submission: its status, its tests' results so far, its score and review",
        operation_id="getCodeSubmission",
    )
    def get(self, request: Request, submission_id: int) -> Response:
        submission = code.submission_of(user=request.user, submission_id=submission_id)
        if submission is None:
            raise Problem(
                status_code=404,
                slug="not-found",
                title="Not found",
                detail=f"You have no code submission {submission_id}.",
            )
        return Response(code.submission_shape(submission))
