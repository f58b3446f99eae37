from django.urls import path

from classrooms.web import views

app_name = "classrooms"

urlpatterns = [
    path("teach/", views.dashboard, name="dashboard"),
    path("teach/<int:classroom_id>/", views.classroom, name="classroom"),
    path("teach/<int:classroom_id>/rename/", views.rename, name="rename"),
    path("teach/<int:classroom_id>/rotate/", views.rotate, name="rotate"),
    path("teach/<int:classroom_id>/archive/", views.archive, name="archive"),
    path("teach/<int:classroom_id>/remove/<int:user_id>/", views.remove, name="remove"),
    path("teach/<int:classroom_id>/learners/<int:user_id>/", views.learner, name="learner"),
    path("teach/<int:classroom_id>/progress/", views.progress, name="progress"),
    path("teach/<int:classroom_id>/assignments/new/", views.assignment_new, name="assignment-new"),
    path(
        "teach/<int:classroom_id>/assignments/<int:assignment_id>/",
        views.assignment_edit,
        name="assignment-edit",
    ),
    path(
        "teach/<int:classroom_id>/assignments/<int:assignment_id>/delete/",
        views.assignment_delete,
        name="assignment-delete",
    ),
    path("teach/<int:classroom_id>/questions/", views.items, name="items"),
    path(
        "teach/<int:classroom_id>/questions/<int:question_id>/reports/",
        views.reports,
        name="reports",
    ),
    path("teach/digest/", views.digest, name="digest"),
    path("join/<str:code>/", views.join, name="join"),
]
