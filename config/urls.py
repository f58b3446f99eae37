from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView

from config import converters
from config.docs import ApiDocsView
from config.health import HealthView
from config.problem_types import problem_type_detail, problem_type_index
from config.problems import api_not_found

converters.register()

api = [
    path("", include("accounts.api.urls")),
    path("", include("course.api.urls")),
    path("", include("quizzes.api.urls")),
    path("", include("reviews.api.urls")),
    path("", include("classrooms.api.urls")),
    path("health/", HealthView.as_view(), name="health"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", ApiDocsView.as_view(url_name="schema"), name="docs"),
    re_path(r"^(?P<unmatched>.*)$", api_not_found),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api)),
    path("problems/", problem_type_index, name="problem-types"),
    path("problems/<slug:slug>/", problem_type_detail, name="problem-type"),
]

handler400 = "config.problems.bad_request"
handler404 = "config.problems.not_found"
handler500 = "config.problems.server_error"
