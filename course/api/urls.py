from django.urls import path

from course.api import classrooms, labs, views

urlpatterns = [
    path("courses/", views.CourseListView.as_view(), name="course-list"),
    path("courses/<slug:slug>/", views.CourseDetailView.as_view(), name="course-detail"),
    path("lessons/<slug:slug>/", views.LessonDetailView.as_view(), name="lesson-detail"),
    path(
        "lessons/<slug:slug>/complete/", views.LessonCompleteView.as_view(), name="lesson-complete"
    ),
    path("glossary/", views.GlossaryView.as_view(), name="glossary"),
    path("reports/", views.ReportCreateView.as_view(), name="report-create"),
    path("classrooms/", classrooms.ClassroomListView.as_view(), name="classroom-list"),
    path("classrooms/join/", classrooms.JoinView.as_view(), name="classroom-join"),
    path(
        "classrooms/<int:classroom_id>/",
        classrooms.ClassroomDetailView.as_view(),
        name="classroom-detail",
    ),
    path(
        "classrooms/<int:classroom_id>/rotate-code/",
        classrooms.RotateCodeView.as_view(),
        name="classroom-rotate-code",
    ),
    path(
        "classrooms/<int:classroom_id>/leave/",
        classrooms.LeaveView.as_view(),
        name="classroom-leave",
    ),
    path(
        "classrooms/<int:classroom_id>/members/",
        classrooms.MemberListView.as_view(),
        name="classroom-members",
    ),
    path(
        "classrooms/<int:classroom_id>/members/<int:user_id>/",
        classrooms.MemberRemoveView.as_view(),
        name="classroom-member-remove",
    ),
    path("labs/neuron/", labs.NeuronLabView.as_view(), name="lab-neuron"),
    path("labs/parameters/", labs.ParametersLabView.as_view(), name="lab-parameters"),
    path("labs/near-orthogonal/", labs.NearOrthogonalLabView.as_view(), name="lab-near-orthogonal"),
]
