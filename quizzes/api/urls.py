from django.urls import path

from quizzes.api import views

urlpatterns = [
    path("questions/", views.QuestionListView.as_view(), name="question-list"),
    path("questions/<id:question_id>/", views.QuestionDetailView.as_view(), name="question-detail"),
]
