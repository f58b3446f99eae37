from django.urls import path

from classrooms.api import assignments, classrooms, items, progress

urlpatterns = [
    path("classrooms/", classrooms.ClassroomListView.as_view(), name="classroom-list"),
    path("classrooms/join/", classrooms.JoinView.as_view(), name="classroom-join"),
    path(
        "classrooms/<id:classroom_id>/",
        classrooms.ClassroomDetailView.as_view(),
        name="classroom-detail",
    ),
    path(
        "classrooms/<id:classroom_id>/rotate-code/",
        classrooms.RotateCodeView.as_view(),
        name="classroom-rotate-code",
    ),
    path(
        "classrooms/<id:classroom_id>/archive/",
        classrooms.ArchiveView.as_view(),
        name="classroom-archive",
    ),
    path(
        "classrooms/<id:classroom_id>/restore/",
        classrooms.RestoreView.as_view(),
        name="classroom-restore",
    ),
    path(
        "classrooms/<id:classroom_id>/leave/",
        classrooms.LeaveView.as_view(),
        name="classroom-leave",
    ),
    path(
        "classrooms/<id:classroom_id>/members/",
        classrooms.MemberListView.as_view(),
        name="classroom-members",
    ),
    path(
        "classrooms/<id:classroom_id>/members/<id:user_id>/",
        classrooms.MemberRemoveView.as_view(),
        name="classroom-member-remove",
    ),
    path(
        "classrooms/<id:classroom_id>/assignments/",
        assignments.AssignmentListView.as_view(),
        name="classroom-assignments",
    ),
    path(
        "classrooms/<id:classroom_id>/assignments/<id:assignment_id>/",
        assignments.AssignmentDetailView.as_view(),
        name="classroom-assignment-detail",
    ),
    path(
        "classrooms/<id:classroom_id>/progress/",
        progress.ProgressView.as_view(),
        name="classroom-progress",
    ),
    path(
        "classrooms/<id:classroom_id>/items/",
        items.ItemsView.as_view(),
        name="classroom-items",
    ),
]
