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
    # The web app: the shell (home) and each app's pages.
    path("", include("web.urls")),
    path("", include("accounts.web.urls")),
    path("", include("course.web.urls")),
    path("", include("reviews.web.urls_interview")),
    path("", include("quizzes.web.urls")),
    path("", include("reviews.web.urls")),
    path("", include("classrooms.web.urls")),
]

# Problem documents under /api/, pages in the site's layout elsewhere.
handler400 = "web.errors.bad_request"
handler403 = "web.errors.forbidden"
handler404 = "web.errors.not_found"
handler500 = "web.errors.server_error"
