from django.urls import include, path

app_name = "reviews"

urlpatterns: list[object] = [path("", include("reviews.web.urls_stats"))]
