from django.urls import path

app_name = "course"

urlpatterns: list[object] = []
