from django.urls import path

from quizzes.web import interview

app_name = "interview"

urlpatterns = [
    path("interview/", interview.index, name="index"),
    path("interview/q/<slug:key>/", interview.question, name="question"),
    path("interview/q/<slug:key>/report/", interview.report, name="report"),
    path("interview/<slug:category>/", interview.category, name="category"),
]
