from django.urls import path

from course.web import labs, views

app_name = "course"

urlpatterns = [
    path("plans/", views.plans, name="plans"),
    path("plans/redeem/", views.plans_redeem, name="plans-redeem"),
    path("plans/checkout/", views.plans_checkout, name="plans-checkout"),
    path("plans/portal/", views.plans_portal, name="plans-portal"),
    path("labs/", labs.index, name="labs"),
    path("labs/parameters/", labs.parameters, name="lab-parameters"),
    path("labs/dot-product/", labs.dot_product, name="lab-dot-product"),
    path("labs/toy-mlp/", labs.toy_mlp, name="lab-toy-mlp"),
    path("labs/residual-stream/", labs.residual_stream, name="lab-residual-stream"),
    path("labs/and-gate/", labs.and_gate, name="lab-and-gate"),
    path("labs/near-orthogonal/", labs.near_orthogonal, name="lab-near-orthogonal"),
    path("courses/<slug:course>/", views.course, name="course"),
    path("courses/<slug:course>/<slug:lesson>/", views.lesson, name="lesson"),
    path("courses/<slug:course>/<slug:lesson>/complete/", views.complete, name="complete"),
    path("courses/<slug:course>/<slug:lesson>/report/", views.report, name="report"),
]
