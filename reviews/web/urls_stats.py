"""The learner's numbers and cards; included into the `reviews` namespace."""

from django.urls import path

from reviews.web import cards, stats

urlpatterns = [
    path("stats/", stats.stats_page, name="stats"),
    path("cards/", cards.card_list, name="cards"),
    path("cards/selected/", cards.card_bulk, name="cards-bulk"),
    *(
        path(
            f"cards/<id:card_id>/{action}/",
            cards.card_action,
            {"action": action},
            name=f"card-{action}",
        )
        for action in cards.ACTIONS
    ),
]
