app_name = "course"

urlpatterns: list[object] = []
