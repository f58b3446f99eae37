from django.urls import include, path

from reviews.web import checks, practice, review

app_name = "reviews"

urlpatterns = [
    path("review/", review.review, name="review"),
    path("review/done/", review.review_done, name="review-done"),
    path("review/undo/", review.review_undo, name="review-undo"),
    path("review/answer/<id:question_id>/", review.review_answer, name="review-answer"),
    path("review/reveal/<id:question_id>/", review.review_reveal, name="review-reveal"),
    path("review/questions/<id:question_id>/suspend/", review.card_suspend, name="review-suspend"),
    path("review/questions/<id:question_id>/bury/", review.card_bury, name="review-bury"),
    path("review/questions/<id:question_id>/forget/", review.card_forget, name="review-forget"),
    path("practice/", practice.practice_index, name="practice"),
    path("practice/<slug:scope>/<slug:slug>/", practice.practice_scope, name="practice-scope"),
    path(
        "practice/<slug:scope>/<slug:slug>/answer/<id:question_id>/",
        practice.practice_answer,
        name="practice-answer",
    ),
    path(
        "practice/<slug:scope>/<slug:slug>/reveal/<id:question_id>/",
        practice.practice_reveal,
        name="practice-reveal",
    ),
    path("check/<id:question_id>/", checks.check, name="check"),
    path("check/<id:question_id>/reveal/", checks.check_reveal, name="check-reveal"),
    # The learner's numbers and cards.
    path("", include("reviews.web.urls_stats")),
]
