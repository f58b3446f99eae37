from django.urls import path

from quizzes.api import cards, classrooms, queue, stats, sync, views

urlpatterns = [
    path("questions/", views.QuestionListView.as_view(), name="question-list"),
    path(
        "questions/<int:question_id>/", views.QuestionDetailView.as_view(), name="question-detail"
    ),
    path(
        "questions/<int:question_id>/answers/",
        views.AnswerCreateView.as_view(),
        name="answer-create",
    ),
    path("reviews/queue/", queue.QueueView.as_view(), name="review-queue"),
    path("reviews/undo/", cards.UndoView.as_view(), name="review-undo"),
    path("reviews/sync/", sync.SyncView.as_view(), name="review-sync"),
    path("stats/", stats.StatsView.as_view(), name="stats"),
    path("cards/", cards.CardListView.as_view(), name="card-list"),
    path(
        "classrooms/<int:classroom_id>/assignments/",
        classrooms.AssignmentListView.as_view(),
        name="classroom-assignments",
    ),
    path(
        "classrooms/<int:classroom_id>/progress/",
        classrooms.ProgressView.as_view(),
        name="classroom-progress",
    ),
    path(
        "classrooms/<int:classroom_id>/items/",
        classrooms.ItemsView.as_view(),
        name="classroom-items",
    ),
    path("cards/<int:card_id>/suspend/", cards.SuspendView.as_view(), name="card-suspend"),
    path("cards/<int:card_id>/unsuspend/", cards.UnsuspendView.as_view(), name="card-unsuspend"),
    path("cards/<int:card_id>/forget/", cards.ForgetView.as_view(), name="card-forget"),
]
