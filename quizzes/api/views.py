"""The question bank as learners read it: lists, and one question ready to answer."""

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.conditional import ConditionalGet
from config.problems import Problem
from quizzes import selectors
from quizzes.api import shapes
from quizzes.api.serializers import (
    QuestionDetailQuerySerializer,
    QuestionDetailSerializer,
    QuestionSummarySerializer,
)
from quizzes.filters import QuestionFilter
from quizzes.models import Question


@extend_schema_view(
    get=extend_schema(summary="The question bank, filtered", operation_id="listQuestions")
)
class QuestionListView(ConditionalGet, generics.ListAPIView[Question]):
    permission_classes = [IsAuthenticated]
    serializer_class = QuestionSummarySerializer
    filterset_class = QuestionFilter

    def get_queryset(self) -> Any:
        return selectors.question_list(user=self.request.user)


class QuestionDetailView(ConditionalGet, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[QuestionDetailQuerySerializer],
        responses={200: QuestionDetailSerializer},
        summary="One question; a generated one comes with a fresh variant (or ?seed=)",
        operation_id="getQuestion",
    )
    def get(self, request: Request, question_id: int) -> Response:
        query = QuestionDetailQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        question = question_or_404(question_id, user=request.user)
        return Response(
            shapes.question_detail(
                question, user_id=request.user.pk, seed=query.validated_data.get("seed")
            )
        )


def question_or_404(
    question_id: int,
    *,
    user: Any,
    selector: Callable[..., Question] = selectors.question_detail,
) -> Question:
    """The question, if the caller may open it: a 404 problem when there is none, a 403
    (`pro-required`) when it follows a Pro section and the caller has no Pro plan."""
    try:
        question = selector(question_id=question_id)
    except Question.DoesNotExist:
        raise Problem(
            status_code=404,
            slug="not-found",
            title="Not found",
            detail=f"There is no question {question_id}.",
        ) from None
    if not selectors.question_is_open_to(user, question):
        raise pro_required(question)
    return question


def pro_required(question: Question) -> Problem:
    """The refusal of a Pro question to a caller without Pro, naming the plan."""
    return Problem(
        status_code=403,
        slug="pro-required",
        title="This question is part of Pro",
        detail=f"Question {question.pk} follows the Pro section '{question.section.title}'"
        " and needs a Pro plan.",
    )
