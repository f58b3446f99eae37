"""Questions, answers, cards and reviews: arrives with the question bank."""
