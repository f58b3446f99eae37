from django.urls import path

from quizzes.web import interview

app_name = "interview"

urlpatterns = [
    path("interview/", interview.index, name="index"),
    path("interview/q/<slug:key>/", interview.question, name="question"),
    path("interview/<slug:category>/", interview.category, name="category"),
]
