"""Practising the interview bank in the browser (plain forms; htmx swaps the same fragments):
one question answered, its model answer revealed, its key points ticked and the card
scheduled; mock interviews from the choice of categories to the summary; and what another
learner, a visitor or a forged form gets."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizzes.models import Question
from reviews import mocks
from reviews.models import Answer, Card, MockInterview, MockQuestion
from tests.factories import (
    BankQuestionFactory,
    InterviewCategoryFactory,
    QuestionFactory,
    UserFactory,
)
from tests.reviews.web.pages import answer_form, forms_in

pytestmark = pytest.mark.django_db


def page(client, url, **kwargs):
    response = client.get(url, **kwargs)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def words(html: str) -> str:
    """The page's text as a reader sees it, in one line."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def practise_by_page(
    client,
    question,
    *,
    typed="Attention, then the MLP.",
    covered=(),
    adjust="suggested",
    aloud=False,
):
    """Ask, reveal, rate: the three steps a learner takes, each a form posted and followed."""
    url = f"/interview/q/{question.key}/practice/"
    asked = answer_form(page(client, url))
    body = {**asked.fields, "response": typed}
    if aloud:
        body["aloud"] = "1"
    revealed = client.post(asked.action, body)
    assert revealed.status_code == 303, revealed.status_code
    shown = page(client, revealed["Location"])
    rating = answer_form(shown, "/answer/")
    answered = client.post(
        rating.action, {**rating.fields, "covered": [str(i) for i in covered], "adjust": adjust}
    )
    assert answered.status_code == 303, answered.status_code
    return shown, page(client, answered["Location"])


# --- one question ------------------------------------------------------------------------------


def test_a_visitor_is_asked_to_sign_in_and_comes_back(client):
    question = BankQuestionFactory()

    response = client.get(f"/interview/q/{question.key}/practice/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")
    assert f"/interview/q/{question.key}/practice/" in response["Location"]
    question_page = page(client, f"/interview/q/{question.key}/")
    assert f'href="/interview/q/{question.key}/practice/"' in question_page
    assert "(with an account)" in question_page


def test_a_question_is_practised_in_three_steps_and_joins_the_reviews(client, learner):
    question = BankQuestionFactory()
    asked = page(client, f"/interview/q/{question.key}/practice/")
    # Nothing before the answer gives the answer away.
    assert question.model_answer_html not in asked
    assert question.entry.key_points[0] not in asked
    assert "I said it out loud" in asked

    shown, done = practise_by_page(client, question, covered=[0, 1, 2])

    assert question.entry.key_points[3] in shown
    assert "Which key points did your answer cover?" in shown
    assert [o for f in forms_in(shown) for o in f.options.get("covered", [])] == [
        "0",
        "1",
        "2",
        "3",
    ]
    text = words(done)
    assert "You covered 3 of 4 key points, which suggests Hard." in text
    assert "Missed: ✗ " + question.entry.key_points[3] in text
    assert "You will see this question again in" in text
    card = Card.objects.get(user=learner, question=question)
    assert (card.state, card.reps, card.lesson_id) == ("learning", 1, None)
    answer = Answer.objects.get(user=learner)
    assert (answer.covered_key_points, answer.self_rating, answer.response) == (
        [0, 1, 2],
        "hard",
        "Attention, then the MLP.",
    )


@pytest.mark.parametrize(
    ("covered", "adjust", "rating", "said"),
    [
        ([0, 1, 2, 3], "higher", "easy", "which suggests Good; you rated it Easy."),
        ([0, 1, 2, 3], "lower", "hard", "which suggests Good; you rated it Hard."),
        ([], "lower", "again", "which suggests Again."),  # nothing below Again
        ([], "higher", "hard", "which suggests Again; you rated it Hard."),
        ([1, 2, 3], "suggested", "hard", "which suggests Hard."),
    ],
)
def test_the_learner_moves_the_suggested_rating_a_step(
    client, learner, covered, adjust, rating, said
):
    question = BankQuestionFactory()

    _, done = practise_by_page(client, question, covered=covered, adjust=adjust)

    assert Answer.objects.get(user=learner).self_rating == rating
    assert f"You covered {len(covered)} of 4 key points, {said}" in words(done)


def test_an_answer_said_out_loud_keeps_nothing_typed_and_counts_by_its_points(client, learner):
    question = BankQuestionFactory()

    shown, _ = practise_by_page(
        client, question, typed="Typed before choosing to speak.", covered=[0, 1, 2, 3], aloud=True
    )

    assert "What you wrote" not in shown
    answer = Answer.objects.get(user=learner)
    assert (answer.response, answer.status, answer.self_rating) == ("", "correct", "good")


def test_forged_ticks_are_refused_and_nothing_is_written(client, learner):
    question = BankQuestionFactory()
    asked = answer_form(page(client, f"/interview/q/{question.key}/practice/"))
    revealed = client.post(asked.action, {**asked.fields, "response": "x"})
    rating = answer_form(page(client, revealed["Location"]), "/answer/")

    for forged in (
        {"covered": ["9"]},
        {"covered": ["-1"]},
        {"covered": ["0", "0x"]},
        {"covered": ["\x00"]},
        {"covered": ["0"], "adjust": "two steps higher"},
    ):
        response = client.post(rating.action, {**rating.fields, **forged})
        assert response.status_code == 200
        assert (
            "field-error" in response.content.decode()
            or "There is a problem" in response.content.decode()
        )

    assert not Answer.objects.exists()


def test_another_learners_answer_and_a_course_question_are_not_found(client, learner):
    question = BankQuestionFactory()
    other = UserFactory()
    client.force_login(other)
    practise_by_page(client, question, covered=[0])
    theirs = Answer.objects.get(user=other).pk
    client.force_login(learner)

    assert client.get(f"/interview/q/{question.key}/practice/?answer={theirs}").status_code == 404
    course_question = QuestionFactory()
    assert client.get(f"/interview/q/{course_question.key}/practice/").status_code == 404
    assert client.post(f"/interview/q/{course_question.key}/practice/answer/").status_code == 404
    assert client.get("/interview/q/no-such-question/practice/").status_code == 404
    # A bank question is not answered on a lesson's check either.
    assert client.post(f"/check/{question.pk}/", {}).status_code == 404


def test_the_next_question_is_the_categorys_next(client, learner):
    category = InterviewCategoryFactory()
    first = BankQuestionFactory(category=category, position=1)
    second = BankQuestionFactory(category=category, position=2)

    _, done = practise_by_page(client, first, covered=[0])
    _, after_second = practise_by_page(client, second, covered=[0])

    assert f'href="/interview/q/{second.key}/practice/"' in done
    assert f"Next question in {category.title}" in done
    assert f'href="/interview/q/{first.key}/practice/"' in after_second


def test_a_due_bank_card_is_reviewed_in_the_review_session_by_its_key_points(client, learner):
    question = BankQuestionFactory()
    practise_by_page(client, question, covered=[0])
    Card.objects.filter(user=learner).update(due=timezone.now() - timedelta(minutes=1))

    review = page(client, "/review/")
    assert f"{question.category.title}: interview question" in review
    asked = answer_form(review)
    revealed = client.post(asked.action, {**asked.fields, "response": "Better now."})
    rating = answer_form(page(client, revealed["Location"]), "/answer/")
    done = client.post(rating.action, {**rating.fields, "covered": ["0", "1", "2", "3"]})

    assert done.status_code == 303
    assert Card.objects.get(user=learner, question=question).reps == 2
    assert Answer.objects.filter(user=learner).latest("pk").covered_key_points == [0, 1, 2, 3]
    cards = page(client, "/cards/")
    assert f"Interview questions: {question.category.title}" in cards


def test_a_practice_step_costs_the_same_with_a_long_history(client, learner):
    question = BankQuestionFactory()
    counts = []
    for _ in range(2):
        url = f"/interview/q/{question.key}/practice/"
        with CaptureQueriesContext(connection) as read:
            page(client, url)
        counts.append(len(read))
        for _ in range(20):
            practise_by_page(client, BankQuestionFactory(), covered=[0, 1])

    assert counts[0] == counts[1], counts


def test_a_bank_question_is_reported_from_its_page(client, learner):
    question = BankQuestionFactory()
    form_page = page(client, f"/interview/q/{question.key}/report/")
    assert "Report a mistake" in form_page

    empty = client.post(f"/interview/q/{question.key}/report/", {"message": "  "})
    sent = client.post(f"/interview/q/{question.key}/report/", {"message": "Point 2 is off."})

    assert empty.status_code == 400
    assert sent.status_code == 303
    from course.models import Report

    report = Report.objects.get()
    assert (report.question_id, report.lesson_id, report.message) == (
        question.pk,
        None,
        "Point 2 is off.",
    )


# --- mock interviews ---------------------------------------------------------------------------


def start_mock(client, **choices):
    index = page(client, "/interview/mock/")
    form = next(f for f in forms_in(index) if f.action == "/interview/mock/")
    return client.post(form.action, {**form.fields, "length": "3", "level": "", **choices})


def test_a_visitor_reads_what_a_mock_is_and_is_asked_to_sign_in(client):
    text = words(page(client, "/interview/mock/"))

    assert "Sign in or sign up to run a mock interview" in text
    assert client.post("/interview/mock/", {"length": "3"}).status_code == 302
    assert not MockInterview.objects.exists()


def test_a_three_question_mock_runs_to_its_summary_and_schedules_every_question(client, learner):
    chosen, other = InterviewCategoryFactory(title="Attention"), InterviewCategoryFactory()
    asked = [BankQuestionFactory(category=chosen, level="junior") for _ in range(3)]
    BankQuestionFactory(category=chosen, level="senior")
    BankQuestionFactory(category=other, level="junior")

    started = start_mock(client, categories=[chosen.slug], level="junior")

    assert started.status_code == 303
    mock = MockInterview.objects.get(user=learner)
    assert started["Location"] == f"/interview/mock/{mock.pk}/"
    assert set(mock.questions.values_list("question_id", flat=True)) == {q.pk for q in asked}
    for number in (1, 2, 3):
        html = page(client, f"/interview/mock/{mock.pk}/")
        assert f"Question {number} of 3" in html
        assert 'role="timer"' in html
        assert "Aim for about 2 minutes" in html
        form = answer_form(html)
        revealed = client.post(form.action, {**form.fields, "response": f"Answer {number}"})
        rating = answer_form(page(client, revealed["Location"]), "/answer/")
        done = client.post(rating.action, {**rating.fields, "covered": ["0", "1"][: number - 1]})
        assert done.status_code == 303
        after = page(client, done["Location"])
        label = "See the summary" if number == 3 else "Next question"
        assert label in after
    assert client.get(f"/interview/mock/{mock.pk}/")["Location"] == (
        f"/interview/mock/{mock.pk}/summary/"
    )

    summary = words(page(client, f"/interview/mock/{mock.pk}/summary/"))

    mock.refresh_from_db()
    assert mock.finished_at is not None
    assert "3 of 3 questions answered" in summary
    assert "Attention 3 3 of 12 –" in summary  # key points covered: 0 + 1 + 2 of 4 each
    assert asked[0].entry.key_points[3] in summary  # missed by every answer
    assert summary.count("Back for review") == 3
    cards = Card.objects.filter(user=learner, question__in=asked)
    assert sorted(cards.values_list("reps", flat=True)) == [1, 1, 1]


def test_a_mock_asks_never_practised_questions_first_and_takes_turns_between_categories(learner):
    first, second = InterviewCategoryFactory(), InterviewCategoryFactory()
    known = BankQuestionFactory(category=first)
    fresh = [BankQuestionFactory(category=first), BankQuestionFactory(category=second)]
    Card.objects.create(user=learner, question=known, state="review", due=timezone.now(), seed=3)

    mock = mocks.mock_start(
        user=learner, categories=[first, second], level="", length=2, now=timezone.now()
    )

    assert set(mock.questions.values_list("question_id", flat=True)) == {q.pk for q in fresh}


def test_a_mock_with_nothing_to_ask_says_so(client, learner):
    BankQuestionFactory(level="junior")

    response = start_mock(client, level="senior")

    assert response.status_code == 400
    assert "No question matches these categories at this level" in response.content.decode()
    assert not MockInterview.objects.exists()


@pytest.mark.parametrize(
    "choices",
    [{"length": "4"}, {"length": "999999"}, {"level": "guru"}, {"categories": ["no-such"]}],
)
def test_a_mock_form_out_of_its_choices_is_refused(client, learner, choices):
    BankQuestionFactory()

    response = start_mock(client, **choices)

    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()
    assert not MockInterview.objects.exists()


def test_another_learners_mock_is_not_found(client, learner):
    question = BankQuestionFactory()
    theirs = mocks.mock_start(
        user=UserFactory(), categories=[], level="", length=3, now=timezone.now()
    )

    for url in (
        f"/interview/mock/{theirs.pk}/",
        f"/interview/mock/{theirs.pk}/summary/",
    ):
        assert client.get(url).status_code == 404
    assert client.post(f"/interview/mock/{theirs.pk}/answer/{question.pk}/").status_code == 404
    assert client.post(f"/interview/mock/{theirs.pk}/reveal/{question.pk}/").status_code == 404


def test_a_question_outside_the_mock_is_not_answered_through_it(client, learner):
    inside, outside = BankQuestionFactory(), BankQuestionFactory(level="senior")
    mock = mocks.mock_start(user=learner, categories=[], level="mid", length=3, now=timezone.now())
    assert list(mock.questions.values_list("question_id", flat=True)) == [inside.pk]

    response = client.post(f"/interview/mock/{mock.pk}/answer/{outside.pk}/", {})

    assert response.status_code == 404
    assert not Answer.objects.exists()


def test_a_number_in_a_mock_is_checked_and_its_answer_is_not_shown_first(client, learner):
    numeric = BankQuestionFactory(
        kind=Question.Kind.NUMERIC,
        answer=42,
        tolerance={"kind": "exact", "amount": 0},
        prompt_markdown="How many?",
    )
    mock = mocks.mock_start(user=learner, categories=[], level="", length=3, now=timezone.now())

    html = page(client, f"/interview/mock/{mock.pk}/")

    assert "Show the answer" not in html
    assert client.post(f"/interview/mock/{mock.pk}/reveal/{numeric.pk}/", {}).status_code == 404
    form = answer_form(html)
    done = client.post(form.action, {**form.fields, "response": "42"})
    assert done.status_code == 303
    summary = words(page(client, f"/interview/mock/{mock.pk}/summary/"))
    assert "Right" in summary
    assert "1 of 1" in summary
    assert MockQuestion.objects.get(mock=mock).answer.status == "correct"


def test_the_clock_starts_when_a_question_is_first_shown(client, learner):
    BankQuestionFactory()
    mock = mocks.mock_start(user=learner, categories=[], level="", length=3, now=timezone.now())
    item = mock.questions.get()
    assert item.shown_at is None

    page(client, f"/interview/mock/{mock.pk}/")
    first = MockQuestion.objects.get(pk=item.pk).shown_at
    page(client, f"/interview/mock/{mock.pk}/")

    assert first is not None
    assert MockQuestion.objects.get(pk=item.pk).shown_at == first


def test_a_mock_page_costs_the_same_for_3_questions_as_for_10(client, learner):
    counts = []
    for length in (3, 10):
        category = InterviewCategoryFactory()
        BankQuestionFactory.create_batch(length, category=category)
        mock = mocks.mock_start(
            user=learner, categories=[category], level="", length=length, now=timezone.now()
        )
        page(client, f"/interview/mock/{mock.pk}/")  # its clock started
        with CaptureQueriesContext(connection) as read:
            page(client, f"/interview/mock/{mock.pk}/")
        counts.append(len(read))

    assert counts[0] == counts[1], counts


def test_the_summary_costs_the_same_for_3_questions_as_for_10(client, learner):
    counts = []
    for length in (3, 10):
        category = InterviewCategoryFactory()
        BankQuestionFactory.create_batch(length, category=category)
        mock = mocks.mock_start(
            user=learner, categories=[category], level="", length=length, now=timezone.now()
        )
        with CaptureQueriesContext(connection) as read:
            page(client, f"/interview/mock/{mock.pk}/summary/")
        counts.append(len(read))

    assert counts[0] == counts[1], counts
