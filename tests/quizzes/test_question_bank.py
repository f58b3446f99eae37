"""The shipped question bank over HTTP: every payload served before an answer keeps the answer
to itself, and every generated family grades right answers right and names each mistake."""

import json
import re
from fractions import Fraction

import pytest

from accounts.models import User
from config.throttles import ScopedRateThrottle
from engine import FAMILIES, Interval, get_family
from engine.formatting import format_number
from quizzes.models import Question
from reviews.models import Answer
from tests.content import load_shipped
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

FORBIDDEN_KEYS = {
    "answer",
    "correct",
    "is_correct",
    "correct_answer",
    "model_answer",
    "model_answer_html",
    "mistakes",
    "misconception",
    "explanation",
    "explanation_html",
    "solution_steps",
    "tolerance",
}


@pytest.fixture
def bank(api, monkeypatch):
    # These tests answer hundreds of times in a minute; the per-learner limit has its own test.
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "answers", "100000/min")
    load_shipped()
    api.authenticate(UserFactory(plan=User.Plan.PRO))  # the whole bank, Pro questions included
    return Question.objects.live().prefetch_related("choices")


def keys_of(payload):
    if isinstance(payload, dict):
        return set(payload) | {k for v in payload.values() for k in keys_of(v)}
    if isinstance(payload, list):
        return {k for v in payload for k in keys_of(v)}
    return set()


def revealing_numbers(value) -> list[str]:
    """How an answer would look if it leaked: only values too specific to appear by chance."""
    if isinstance(value, dict):
        return []
    if isinstance(value, int) and abs(value) >= 1000:
        return [str(value), f"{value:,}"]
    if isinstance(value, float) and len(repr(value).rstrip("0")) >= 6:
        return [repr(value)]
    return []


def test_the_bank_is_what_the_course_promises(bank):
    assert bank.count() >= 60
    assert bank.filter(interview=True).count() >= 30
    assert bank.filter(interview=True).values("topic").distinct().count() >= 4
    assert not bank.filter(interview=True, model_answer_markdown="").exists()
    # Every engine family asks something: in the course, or in the interview bank.
    asked = Question.objects.filter(archived_at__isnull=True).values_list("generator", flat=True)
    assert set(FAMILIES) <= set(asked)
    assert bank.filter(key="mlp-works-per-token", kind="single_choice").exists()


def test_nothing_served_before_an_answer_gives_it_away(api, bank):
    pages, url = [], "/api/v1/questions/?page_size=100"
    while url:
        page = api.get(url.replace(api.base_url, "")).json()
        pages.append(page)
        url = page["next"]
    listed = [q for page in pages for q in page["results"]]
    assert len(listed) == bank.count()

    for question in bank:
        served = [api.get(f"/api/v1/questions/{question.pk}/").json() for _ in range(3)]
        served.append(next(q for q in listed if q["id"] == question.pk))
        text = json.dumps(served)
        assert not keys_of(served) & FORBIDDEN_KEYS, question.key
        if question.model_answer_markdown:
            assert question.model_answer_html not in text
        for mistake in question.mistakes:
            for leak in revealing_numbers(mistake["value"]):
                assert leak not in text, (question.key, leak)
        for leak in revealing_numbers(question.answer):
            assert leak not in text, (question.key, leak)
        for payload in served[:3]:
            if question.is_generated:
                variant = get_family(question.generator).variant(int(payload["variant"]["seed"]))
                shown = json.dumps(payload)
                for value in [variant.answer, *(m.value for m in variant.mistakes)]:
                    for leak in revealing_numbers(value):
                        assert leak not in shown, (question.key, leak)


def typed_forms(value) -> list[str]:
    """The right value typed three ways a person might."""
    if isinstance(value, Interval):
        low, high = value.low, value.high
        if high is not None and value.high_closed:
            inside = high
        elif low is not None and value.low_closed:
            inside = low
        elif low is None or high is None:
            inside = (high - 1) if low is None else (low + 1)
        else:
            inside = (low + high) / 2
        return typed_forms(float(inside))
    if isinstance(value, int) or (float(value).is_integer() and abs(value) >= 1000):
        n = int(value)
        mantissa = str(n)[0] + ("." + str(n)[1:].rstrip("0") if str(n)[1:].strip("0") else "")
        return [str(n), f"{n:,}", f"{mantissa}e{len(str(n)) - 1}"]
    exact = Fraction(repr(value))
    plain = format(exact.numerator / exact.denominator, ".12g")
    return [plain, f"{plain} units", repr(value).replace("-", "\u2212")]


def test_every_generated_family_grades_right_answers_and_names_each_mistake(api, bank):
    for question in bank.filter(generator__gt=""):
        for seed in (11, 2024):
            detail = api.get(f"/api/v1/questions/{question.pk}/", params={"seed": seed}).json()
            token = detail["variant"]["token"]
            variant = get_family(question.generator).variant(seed)
            url = f"/api/v1/questions/{question.pk}/answers/"

            for typed in typed_forms(variant.answer):
                body = api.post(url, {"response": typed, "variant": token, "mode": "practice"})
                assert body.json()["status"] == "correct", (question.key, seed, typed, body.text)

            for mistake in variant.mistakes:
                typed = typed_forms(mistake.value)[0]
                body = api.post(url, {"response": typed, "variant": token}).json()
                assert body["status"] == "incorrect", (question.key, mistake, body)
                assert body["misconception"]["code"] == mistake.code, (question.key, typed)
    assert Answer.objects.filter(misconception__gt="").exists()


def test_the_lectures_check_questions_grade_as_the_lecture_says(api, bank):
    def ask(key, typed):
        question = bank.get(key=key)
        return api.post(f"/api/v1/questions/{question.pk}/answers/", {"response": typed}).json()

    neuron = next(q for q in bank if q.kind == "numeric" and q.answer == 0.7)
    weights = next(q for q in bank if q.kind == "numeric" and q.answer == 8_000_000)

    assert ask(neuron.key, "0.7")["status"] == "correct"
    assert ask(weights.key, "8 million")["status"] == "correct"
    assert re.search(r"8,000,000", ask(weights.key, "8e6")["correct_answer"])
    assert format_number(8_000_000) == "8,000,000"


def test_the_right_choice_cannot_be_spotted_by_its_length(bank):
    """Without a length cue, the right option of a k-option question is the strictly longest
    (or shortest) at most 1/k of the time, a quarter for our four options. Allowing a third
    leaves room for the spread of a bank of about twenty questions (one standard deviation of
    a binomial with n = 20 and p = 1/4 is about 10 points), while picking the longest option
    then beats a blind guess by a few points at most. The bank once had it at 11 of 19."""
    single = [q for q in bank if q.kind == "single_choice"]

    def strictly(pick, question) -> bool:
        lengths = [len(c.text_markdown) for c in question.choices.all()]
        right = next(i for i, c in enumerate(question.choices.all()) if c.is_correct)
        return lengths[right] == pick(lengths) and lengths.count(lengths[right]) == 1

    longest = [q.key for q in single if strictly(max, q)]
    shortest = [q.key for q in single if strictly(min, q)]

    assert len(single) >= 15
    assert len(longest) <= len(single) / 3, longest
    assert len(shortest) <= len(single) / 3, shortest


def test_a_free_learner_gets_the_shipped_bank_without_its_pro_questions(api, bank):
    api.authenticate(UserFactory(plan=User.Plan.FREE))
    pro = bank.filter(section__access="pro")

    listed = api.get("/api/v1/questions/", params={"page_size": 100}).json()
    refused = [api.get(f"/api/v1/questions/{q.pk}/").status_code for q in pro]

    assert pro.count() >= 10
    assert listed["count"] == bank.count() - pro.count()
    assert not {q["id"] for q in listed["results"]} & set(pro.values_list("pk", flat=True))
    assert set(refused) == {403}
