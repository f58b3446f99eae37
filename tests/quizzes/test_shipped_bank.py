"""The shipped interview bank holds its floors (500 questions, 14 categories of 20 or more,
every level in each, 40 numeric, 20 coding), every figure it works out is recomputed here,
every coding solution passes its hidden tests in the sandbox, no two questions ask the same
thing in other words, and every question's page opens."""

from __future__ import annotations

import functools
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from engine.coding import PROBLEMS, get_problem
from quizzes import bank_rules
from quizzes.coding import grade_source, hidden_seed
from quizzes.grading import grade_submission
from quizzes.models import InterviewCategory, Level, Question
from tests.content import load_shipped

pytestmark = pytest.mark.django_db

BANK = Path(settings.CONTENT_DIR) / "interview" / "questions"

# The seven questions of the source page's Attention category, in the bank in our own words.
SEED_QUESTIONS = [
    "attention-block-anatomy-params",
    "attention-scaled-dot-product-walkthrough",
    "attention-causal-mask-ladder",
    "attention-pronoun-head-claim",
    "attention-double-context-cost",
    "attention-implement-causal-mha",
    "attention-prenorm-trains-badly",
]


@functools.cache
def files() -> dict[str, list[dict]]:
    return {
        path.stem: yaml.safe_load(path.read_text(encoding="utf-8"))
        for path in sorted(BANK.glob("*.yaml"))
    }


def every_question() -> list[dict]:
    return [q for questions in files().values() for q in questions]


@pytest.fixture
def bank():
    load_shipped()


def test_the_bank_holds_500_questions_in_14_categories_of_20_or_more(bank):
    counts = Counter(Question.objects.interview_bank().values_list("category__slug", flat=True))

    assert sum(counts.values()) >= 500
    assert len(counts) >= 14
    assert min(counts.values()) >= 20, counts


def test_every_category_spreads_its_questions_over_the_levels(bank):
    levels = Counter(Question.objects.interview_bank().values_list("category__slug", "level"))

    for category in InterviewCategory.objects.live():
        spread = {level: levels[(category.slug, level)] for level in Level.values}
        assert min(spread.values()) >= 5, (category.slug, spread)


def test_at_least_40_questions_ask_for_a_number(bank):
    assert Question.objects.interview_bank().filter(kind=Question.Kind.NUMERIC).count() >= 40


def test_the_source_pages_seven_questions_are_in_the_bank(bank):
    found = set(
        Question.objects.interview_bank()
        .filter(key__in=SEED_QUESTIONS, category__slug="attention")
        .values_list("key", flat=True)
    )

    assert found == set(SEED_QUESTIONS)


def test_every_figure_in_the_bank_is_what_its_arithmetic_gives():
    checked = 0
    for question in every_question():
        for figure in question.get("figures", []):
            assert bank_rules.figure_problem(figure["shown"], figure["value"]) is None, (
                question["key"],
                figure,
            )
            checked += 1
        assert bank_rules.question_errors(question) == {}, question["key"]

    assert checked >= 300


def test_every_numeric_answer_is_graded_right_and_each_mistake_is_named(bank):
    for question in Question.objects.interview_bank().filter(kind=Question.Kind.NUMERIC):
        if question.generator:
            continue

        def graded(typed: str, question: Question = question):
            return grade_submission(user_id=0, question=question, choices=[], response=typed).grade

        assert graded(str(question.answer)).status == "correct", question.key
        for mistake in question.mistakes:
            wrong = graded(str(mistake["value"]))
            assert wrong.status == "incorrect", (question.key, mistake)
            assert wrong.misconception.code == mistake["code"], (question.key, mistake)


def test_no_two_questions_ask_the_same_thing_in_other_words():
    wording = {q["key"]: q["question"] for q in every_question()}

    assert bank_rules.near_duplicates(wording) == []


def test_every_question_page_opens_with_its_model_answer(bank, client):
    for question in Question.objects.interview_bank().select_related("entry"):
        response = client.get(f"/interview/q/{question.key}/", secure=True)
        assert response.status_code == 200, question.key
        assert "Model answer" in response.content.decode()


def test_at_least_20_questions_are_answered_with_code_each_graded_by_an_engine_problem(bank):
    coding = Question.objects.interview_bank().filter(kind=Question.Kind.CODE)

    assert coding.count() >= 20
    problems = list(coding.values_list("entry__code_problem", flat=True))
    assert len(set(problems)) == len(problems), "one question per problem"
    assert set(problems) <= set(PROBLEMS)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_every_coding_solution_passes_its_hidden_tests_and_no_starter_does():
    checked = 0
    for question in every_question():
        if "code" not in question:
            continue
        problem = get_problem(question["code"]["problem"])
        seed = hidden_seed(question["key"])
        solution = grade_source(
            problem=problem, seed=seed, source=question["code"]["solution"], examples_only=False
        )
        starter = grade_source(
            problem=problem, seed=seed, source=question["code"]["starter"], examples_only=False
        )
        failed = {t.name: t.message for t in solution.tests if not t.passed}
        assert failed == {}, question["key"]
        assert starter.passed == 0, question["key"]
        checked += 1

    assert checked >= 20
