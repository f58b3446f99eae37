from django.urls import path

from quizzes.api import interview, views

urlpatterns = [
    path("questions/", views.QuestionListView.as_view(), name="question-list"),
    path("questions/<id:question_id>/", views.QuestionDetailView.as_view(), name="question-detail"),
    path(
        "interview/categories/",
        interview.CategoryListView.as_view(),
        name="interview-category-list",
    ),
    path(
        "interview/questions/",
        interview.BankQuestionListView.as_view(),
        name="interview-question-list",
    ),
]
