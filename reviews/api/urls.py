from django.urls import path

from reviews.api import answers, cards, code, interview, queue, stats, sync

urlpatterns = [
    path(
        "questions/<id:question_id>/answers/",
        answers.AnswerCreateView.as_view(),
        name="answer-create",
    ),
    path(
        "questions/<id:question_id>/reveal/",
        answers.RevealView.as_view(),
        name="question-reveal",
    ),
    path("answers/<id:answer_id>/", answers.AnswerDetailView.as_view(), name="answer-detail"),
    path(
        "interview/questions/<slug:key>/practice/",
        interview.PracticeView.as_view(),
        name="interview-practice",
    ),
    path(
        "code/questions/<id:question_id>/submissions/",
        code.SubmissionCreateView.as_view(),
        name="code-submission-create",
    ),
    path(
        "code/submissions/<id:submission_id>/",
        code.SubmissionDetailView.as_view(),
        name="code-submission-detail",
    ),
    path("reviews/queue/", queue.QueueView.as_view(), name="review-queue"),
    path("reviews/undo/", cards.UndoView.as_view(), name="review-undo"),
    path("reviews/sync/", sync.SyncView.as_view(), name="review-sync"),
    path("stats/", stats.StatsView.as_view(), name="stats"),
    path("cards/", cards.CardListView.as_view(), name="card-list"),
    path("cards/<id:card_id>/suspend/", cards.SuspendView.as_view(), name="card-suspend"),
    path("cards/<id:card_id>/unsuspend/", cards.UnsuspendView.as_view(), name="card-unsuspend"),
    path("cards/<id:card_id>/forget/", cards.ForgetView.as_view(), name="card-forget"),
]
