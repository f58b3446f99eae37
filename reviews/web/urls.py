from django.urls import path

app_name = "reviews"

urlpatterns: list[object] = []
