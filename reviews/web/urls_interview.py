"""Practising the interview bank, beside its reading pages (`quizzes.web`): included before
them, since `/interview/mock/` would otherwise be read as a category."""

from django.urls import path

from reviews.web import interview

app_name = "interview-practice"

urlpatterns = [
    path("interview/mock/", interview.mock_index, name="mock-index"),
    path("interview/mock/<id:mock_id>/", interview.mock_page, name="mock"),
    path("interview/mock/<id:mock_id>/summary/", interview.mock_summary, name="mock-summary"),
    path(
        "interview/mock/<id:mock_id>/answer/<id:question_id>/",
        interview.mock_answer,
        name="mock-answer",
    ),
    path(
        "interview/mock/<id:mock_id>/reveal/<id:question_id>/",
        interview.mock_reveal,
        name="mock-reveal",
    ),
    path("interview/q/<slug:key>/practice/", interview.practice, name="page"),
    path("interview/q/<slug:key>/practice/answer/", interview.practice_answer, name="answer"),
    path("interview/q/<slug:key>/practice/reveal/", interview.practice_reveal, name="reveal"),
    path("interview/q/<slug:key>/practice/code/", interview.coding_submit, name="code"),
    path(
        "interview/q/<slug:key>/practice/code/<id:submission_id>/",
        interview.coding_results,
        name="code-results",
    ),
]
