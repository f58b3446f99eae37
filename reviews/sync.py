"""Offline reviews, synced in batches: each checked on its own, applied per card in time order.

A review made offline carries its client id and the time it was made. That time is the device's
word, so it must fall after the account was made and within `OFFLINE_REVIEW_MAX_AGE` (the
variant tokens' lifetime); what a deadline is judged by is when the server received it. Reviews
of one card are applied in `reviewed_at` order whatever order they arrive in. A review older
than the card's last one is slotted into the history and the card rebuilt by replaying its
whole log. A client id seen before is skipped, so sending a batch again changes nothing. A
review counts as one only as an online answer would (`services.answer_counting`): a variant
the learner picked or answered before is kept as practice. A refused review is reported and
never holds back the good ones; the good ones are written in one transaction. Each applied one
comes back with its feedback, for an app that reviewed offline to show.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from accounts.models import User
from config.locks import transaction_lock
from engine.scheduling import CardState, Rating
from quizzes.errors import AnswerRefused
from quizzes.grading import Graded
from quizzes.models import Choice, Question
from quizzes.selectors import question_is_open_to
from reviews import bulk, cards, rollups
from reviews.feedback import notice_of, verdict
from reviews.models import Answer, Card
from reviews.services import (
    Counted,
    Submitted,
    answer_counting,
    answer_row,
    grade_submitted,
    review_rating,
)

MAX_BATCH = 1_000
CLOCK_SKEW = timedelta(minutes=5)


@dataclass
class OfflineReview:
    index: int
    client_id: uuid.UUID
    question_id: int
    reviewed_at: datetime
    submitted: Submitted


@dataclass
class SyncOutcome:
    results: list[dict[str, Any]]
    cards: list[Card] = field(default_factory=list)


@transaction.atomic
def reviews_sync(
    *, user: User, reviews: list[OfflineReview], refused: dict[int, dict[str, Any]], now: datetime
) -> SyncOutcome:
    """Applies the valid reviews; `refused` holds the items the API layer already turned down,
    by position, so the results come back in the order the client sent them."""
    # A sync sent again while the first is still running (an app retrying after a timeout)
    # waits for it, then finds its client ids taken: no review counts twice.
    transaction_lock(f"sync:{user.pk}")
    results: dict[int, dict[str, Any]] = dict(refused)
    # Client ids stored before (with their answer's id) and met earlier in this batch.
    seen: dict[uuid.UUID | None, int | None] = dict(
        Answer.objects.filter(user=user, client_id__in=[r.client_id for r in reviews]).values_list(
            "client_id", "pk"
        )
    )
    questions = {
        q.pk: q
        for q in Question.objects.answerable()
        .filter(pk__in={r.question_id for r in reviews})
        .select_related("lesson", "section")
        .prefetch_related("choices")
    }
    window = timedelta(seconds=settings.OFFLINE_REVIEW_MAX_AGE)
    by_question: dict[int, list[OfflineReview]] = defaultdict(list)
    for review in reviews:
        if review.client_id in seen:
            results[review.index] = {"client_id": str(review.client_id), "status": "duplicate"}
            if stored := seen[review.client_id]:
                results[review.index]["answer_id"] = stored
            continue
        seen[review.client_id] = None
        if review.reviewed_at > now + CLOCK_SKEW:
            results[review.index] = _refused(
                review, "reviewed_at", "in_future", "This time is in the future."
            )
        elif review.reviewed_at < user.date_joined:
            results[review.index] = _refused(
                review,
                "reviewed_at",
                "before_account",
                "This time is before your account was made.",
            )
        elif review.reviewed_at < now - window:
            results[review.index] = _refused(
                review,
                "reviewed_at",
                "too_old",
                f"Reviews made more than {_days(window)} ago can no longer be synced.",
            )
        elif review.question_id not in questions:
            results[review.index] = _refused(
                review, "question", "not_found", f"There is no question {review.question_id}."
            )
        elif not question_is_open_to(user, questions[review.question_id]):
            results[review.index] = _refused(
                review,
                "question",
                "pro_required",
                f"Question {review.question_id} is part of Pro and needs a Pro plan.",
            )
        else:
            by_question[review.question_id].append(review)

    touched = _apply(
        user=user, questions=questions, by_question=by_question, results=results, now=now
    )
    return SyncOutcome(results=[results[i] for i in sorted(results)], cards=touched)


def _days(window: timedelta) -> str:
    days = window / timedelta(days=1)
    return f"{days:g} days" if days != 1 else "a day"


@dataclass
class _Counted:
    """One review of a card, counted (with its verdict), the row it is stored as, and its
    rating when it counts as a review."""

    review: OfflineReview
    counted: Counted
    answer: Answer
    rating: Rating | None


@transaction.atomic
def _apply(
    *,
    user: User,
    questions: dict[int, Question],
    by_question: dict[int, list[OfflineReview]],
    results: dict[int, dict[str, Any]],
    now: datetime,
) -> list[Card]:
    """Every card of the batch in one transaction, with a fixed number of writes: the cards
    are locked in one query, stepped in memory, and written back in bulk."""
    locked = {
        card.question_id: card
        for card in Card.objects.select_for_update().filter(user=user, question_id__in=by_question)
    }
    _refuse_before_reset(locked=locked, by_question=by_question, results=results)
    graded: dict[int, list[tuple[OfflineReview, Graded]]] = {}
    for question_id, group in by_question.items():
        group.sort(key=lambda r: (r.reviewed_at, r.index))
        graded[question_id] = _grade_group(
            user=user, question=questions[question_id], group=group, results=results
        )
    nonces = {g.served.nonce for each in graded.values() for _, g in each if g.served}
    nonces.discard("")
    # Tokens answered before, in any mode: answering them again is practice.
    answered = (
        set(
            Answer.objects.filter(user=user, variant_nonce__in=nonces).values_list(
                "variant_nonce", flat=True
            )
        )
        if nonces
        else set()
    )

    practised: list[_Counted] = []
    stepped: list[tuple[Card, list[_Counted]]] = []
    replays: list[tuple[Card, list[_Counted]]] = []
    for question_id, graded_group in graded.items():
        question = questions[question_id]
        card = locked.get(question_id)
        counted = _count_group(
            user=user,
            question=question,
            card=card,
            group=graded_group,
            answered=answered,
            results=results,
            now=now,
        )
        reviewed = [c for c in counted if c.rating is not None]
        practised += [c for c in counted if c.rating is None]
        if reviewed:
            card = card or cards.new_card(user=user, question=question)
            replays.append((card, reviewed))
    late = [
        card.pk
        for card, reviewed in replays
        if card.pk is not None
        and card.last_review is not None
        and reviewed[0].review.reviewed_at < card.last_review
    ]
    histories: dict[int, list[Answer]] = defaultdict(list)
    # A forgotten card's log is replayed from its reset on: what came before was set aside.
    for answer in (
        Answer.objects.filter(card_id__in=late, mode=Answer.Mode.REVIEW)
        .filter(Q(card__reset_at__isnull=True) | Q(created_at__gte=F("card__reset_at")))
        .order_by("created_at", "pk")
    ):
        histories[answer.card_id or 0].append(answer)
    for card, reviewed in replays:
        history = histories.get(card.pk, []) if card.pk else []
        _replay(user=user, card=card, history=history, reviewed=reviewed)
        stepped.append((card, reviewed))

    known = [card for card, _ in stepped if card.pk is not None]
    # PostgreSQL and SQLite 3.35+ hand back the new cards' ids, which the answers point at.
    Card.objects.bulk_create([card for card, _ in stepped if card.pk is None])
    bulk.card_schedules_write(cards=known, fields=cards.SCHEDULE_FIELDS)
    rewritten = [a for card, _ in stepped for a in histories.get(card.pk, [])]
    Answer.objects.bulk_update(rewritten, ["card_before", "card_after"], batch_size=500)
    for card, reviewed in stepped:
        for item in reviewed:
            item.answer.card = card
    written = [item for _, reviewed in stepped for item in reviewed] + practised
    bulk.answers_insert(answers=[item.answer for item in written])
    courses = {pk: question.course_id for pk, question in questions.items()}
    rollups.record(user=user, answers=[item.answer for item in written], courses=courses)
    # Reviews replayed for a late one may now count otherwise (what state their card was in).
    replayed: dict[int | None, set[date]] = defaultdict(set)
    for answer in rewritten:
        replayed[courses[answer.question_id]].add(
            rollups.study_date_at(user=user, moment=answer.created_at)
        )
    # In a fixed order (the bank's last), as the rollups lock their totals.
    for course_id, days in sorted(replayed.items(), key=lambda item: (item[0] is None, item[0])):
        rollups.refresh(user=user, course_id=course_id, days=days)
    for item in written:
        results[item.review.index] = {
            "client_id": str(item.review.client_id),
            "status": "applied",
            "answer_id": item.answer.pk,
            "mode": item.answer.mode,
            "score": item.answer.score,
            "rating": None if item.rating is None else item.rating.label,
            "notice": notice_of(item.answer),
            "feedback": verdict(questions[item.review.question_id], item.counted.grade),
        }
    return [card for card, _ in stepped]


def _refused(review: OfflineReview, field_name: str, code: str, message: str) -> dict[str, Any]:
    return {
        "client_id": str(review.client_id),
        "status": "invalid",
        "errors": [{"field": field_name, "code": code, "message": message}],
    }


def _grade_group(
    *,
    user: User,
    question: Question,
    group: list[OfflineReview],
    results: dict[int, dict[str, Any]],
) -> list[tuple[OfflineReview, Graded]]:
    """Grades one card's reviews; a refused one is reported and left out."""
    choices: list[Choice] = list(question.choices.all())
    graded: list[tuple[OfflineReview, Graded]] = []
    for review in group:
        try:
            result = grade_submitted(
                user=user, question=question, choices=choices, submitted=review.submitted
            )
        except AnswerRefused as refusal:
            results[review.index] = _refused(
                review, refusal.field or "", refusal.code, refusal.message
            )
            continue
        graded.append((review, result))
    return graded


def _count_group(
    *,
    user: User,
    question: Question,
    card: Card | None,
    group: list[tuple[OfflineReview, Graded]],
    answered: set[str],
    results: dict[int, dict[str, Any]],
    now: datetime,
) -> list[_Counted]:
    """Counts one card's graded reviews in time order, as online answers would count: a token
    counts for review once, and the first review after a reveal follows it. A refused one is
    reported and left out. `answered` gains the tokens answered here."""
    counted: list[_Counted] = []
    for review, graded in group:
        nonce = graded.served.nonce if graded.served else ""
        try:
            how = answer_counting(
                question=question,
                graded=graded,
                mode=Answer.Mode.REVIEW,
                card=card,
                variant_answered=nonce in answered,
                reveal=review.submitted.reveal,
            )
        except AnswerRefused as refusal:
            results[review.index] = _refused(
                review, refusal.field or "", refusal.code, refusal.message
            )
            continue
        if nonce:
            answered.add(nonce)
        if card is not None and how.reveal_id == card.pending_reveal_id:
            card.pending_reveal = None  # this review is the one the reveal waited for
        answer = answer_row(
            user=user,
            question=question,
            submitted=review.submitted,
            graded=graded,
            counted=how,
            now=now,
        )
        answer.created_at = review.reviewed_at
        rating = None
        if how.mode == Answer.Mode.REVIEW:
            rating = review_rating(
                user=user, graded=graded, counted=how, submitted=review.submitted
            )
        counted.append(_Counted(review, how, answer, rating))
    return counted


def _refuse_before_reset(
    *,
    locked: dict[int, Card],
    by_question: dict[int, list[OfflineReview]],
    results: dict[int, dict[str, Any]],
) -> None:
    """Refuses the reviews made before their card was forgotten. Forgetting starts the card
    over; a review from before it belongs to the history the learner set aside, so it is
    reported as invalid and not stored (sending it again gets the same answer)."""
    for question_id, card in list(locked.items()):
        if card.reset_at is None:
            continue
        kept = []
        for review in by_question[question_id]:
            if review.reviewed_at < card.reset_at:
                results[review.index] = _refused(
                    review,
                    "reviewed_at",
                    "before_forget",
                    "This card was forgotten after this review was made; it no longer counts.",
                )
            else:
                kept.append(review)
        if kept:
            by_question[question_id] = kept
        else:
            del by_question[question_id], locked[question_id]


def _replay(*, user: User, card: Card, history: list[Answer], reviewed: list[_Counted]) -> None:
    """Steps the card through its new reviews; with a `history` (a late review arrived), the
    whole log is replayed from a new card, and every entry's before/after is rewritten. For a
    forgotten card the log is its segment since the reset, replayed from the card as it was
    left then (new, due at the reset)."""
    earliest = reviewed[0].review.reviewed_at
    if card.pk is None:
        state = CardState.new(earliest)
    elif history:
        state = CardState.new(card.reset_at or min([earliest, *(a.created_at for a in history)]))
    else:
        state = cards.card_state(card)
    log = sorted(
        [(a.created_at, 0, a.pk or 0, a, Rating(a.rating or Rating.AGAIN)) for a in history]
        + [
            (c.review.reviewed_at, 1, c.review.index, c.answer, c.rating or Rating.AGAIN)
            for c in reviewed
        ],
        key=lambda item: item[:3],
    )
    cards.log_replay(
        user=user, card=card, state=state, log=[(when, a, r) for when, _, _, a, r in log]
    )
    cards.mark_leech(card)
