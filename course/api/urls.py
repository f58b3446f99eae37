from django.urls import path

from course.api import labs, plans, views

urlpatterns = [
    path("courses/", views.CourseListView.as_view(), name="course-list"),
    path("courses/<slug:slug>/", views.CourseDetailView.as_view(), name="course-detail"),
    path("lessons/<slug:slug>/", views.LessonDetailView.as_view(), name="lesson-detail"),
    path(
        "lessons/<slug:slug>/complete/", views.LessonCompleteView.as_view(), name="lesson-complete"
    ),
    path("plans/", plans.PlansView.as_view(), name="plans"),
    path("glossary/", views.GlossaryView.as_view(), name="glossary"),
    path("reports/", views.ReportCreateView.as_view(), name="report-create"),
    path("labs/neuron/", labs.NeuronLabView.as_view(), name="lab-neuron"),
    path("labs/and-gate/", labs.GateLabView.as_view(), name="lab-and-gate"),
    path("labs/dot-question/", labs.DotLabView.as_view(), name="lab-dot-question"),
    path("labs/toy-mlp/", labs.ToyMlpLabView.as_view(), name="lab-toy-mlp"),
    path("labs/residual-stream/", labs.ResidualStreamLabView.as_view(), name="lab-residual-stream"),
    path("labs/parameters/", labs.ParametersLabView.as_view(), name="lab-parameters"),
    path("labs/near-orthogonal/", labs.NearOrthogonalLabView.as_view(), name="lab-near-orthogonal"),
]
