"""The shipped course says what the literature says, and every figure it quotes is computed here.

The course is loaded from content/ and read over HTTP, as a learner's app reads it.
"""

import math
import re

import numpy as np
import pytest

from accounts.models import User
from course.models import GlossaryTerm
from course.web import richtext
from engine import get_family, grade, labs
from quizzes.models import Question
from tests.content import load_shipped
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

GPT3_WIDTH = 12_288


@pytest.fixture
def course(api):
    load_shipped()
    api.authenticate(UserFactory(plan=User.Plan.PRO))
    return api


def section_html(api, lesson: str, section: str) -> str:
    body = api.get(f"/api/v1/lessons/{lesson}/").json()
    return next(s["body_html"] for s in body["sections"] if s["slug"] == section)


def section_text(api, lesson: str, section: str) -> str:
    return plain(section_html(api, lesson, section))


def table_rows(html: str) -> list[list[str]]:
    """Each row of the section's tables, as the text of its cells."""
    return [
        [plain(cell) for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)
    ]


def plain(html: str) -> str:
    """The text a reader sees: tags and formulas' LaTeX sources dropped, white space folded."""
    html = re.sub(r"<annotation [^>]*>.*?</annotation>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def glossary(api) -> dict[str, dict]:
    terms = api.get("/api/v1/glossary/", params={"page_size": 100}).json()["results"]
    return {term["slug"]: term for term in terms}


def guaranteed(width: int, degrees: float) -> float:
    """How many random directions surely keep every pair within `degrees` of 90°: e^(N·ε²/4)
    with ε = sin(degrees). Two random directions have |cos| ≥ ε with chance at most
    2·e^(−N·ε²/2), so among M < e^(N·ε²/4) of them all M²/2 pairs are in the band with
    positive chance."""
    return math.exp(width * math.sin(math.radians(degrees)) ** 2 / 4)


def powers(value: float) -> str:
    """1.36e10 as the lesson writes it: '1.4 × 10¹⁰'."""
    exponent = math.floor(math.log10(value))
    digits = str(exponent).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{value / 10**exponent:.1f} × 10{digits}"


# Superposition: nearly perpendicular directions, with the figures the lesson quotes


def test_the_superposition_table_is_the_johnson_lindenstrauss_count_at_gpt3s_width(course):
    html = section_html(course, "mlp-fact-store", "superposition")
    text = plain(html)
    bands = (1, 2, 5, 10)
    counts = {degrees: guaranteed(GPT3_WIDTH, degrees) for degrees in bands}

    expected = [
        [f"{degrees}°", f"{math.sin(math.radians(degrees)):.4f}", shown]
        for degrees, shown in zip(
            bands,
            [
                str(math.floor(counts[1])),
                str(math.floor(counts[2])),
                f"about {powers(counts[5])}",
                f"about {powers(counts[10])}",
            ],
            strict=True,
        )
    ]

    assert math.floor(counts[1]) == 2
    assert math.floor(counts[2]) == 42
    assert table_rows(html)[-4:] == expected
    # "Within a degree or two" guarantees less than the exactly perpendicular axes; five
    # degrees, over a million times the width.
    assert counts[2] < GPT3_WIDTH
    assert counts[5] / GPT3_WIDTH > 1_000_000
    assert "over a million times the number of dimensions" in text
    assert "grows exponentially with `N`" not in text  # a bare claim, with no band, is gone
    assert "For a fixed band, that number grows exponentially with N" in text


def test_the_lab_shows_what_the_lesson_says_about_typical_and_extreme_pairs(course):
    # As the lab shows it: 120 vectors at GPT-3's width fit within one request's work budget.
    text = section_text(course, "mlp-fact-store", "superposition")
    wide = labs.near_orthogonal(dims=GPT3_WIDTH, vectors=120, rng=2026, bins=180)
    narrow = labs.near_orthogonal(dims=100, vectors=300, rng=2026, bins=18)

    within_one_degree = (wide.counts[89] + wide.counts[90]) / wide.pairs
    within_ten_degrees = (narrow.counts[8] + narrow.counts[9]) / narrow.pairs

    assert round(within_one_degree, 2) == 0.95
    assert "about 95% of random pairs lie between 89° and 91°" in text
    assert round(within_ten_degrees, 1) == 0.9
    assert narrow.pairs == 44_850
    assert "of the 44,850 pairs, about nine in ten lie between 80° and 100°" in text
    assert (round(wide.min_degrees), round(wide.max_degrees)) == (88, 92)
    assert "120 random directions in 12,288 dimensions" in text
    assert "the smallest angle between two of them is already about 88°" in text
    assert "and the largest about 92°" in text


def sylvester(order: int) -> np.ndarray:
    h = np.ones((1, 1), dtype=np.int64)
    while len(h) < order:
        h = np.block([[h, h], [h, -h]])
    return h


def paley(q: int) -> np.ndarray:
    """Paley's construction I: a Hadamard matrix of order q + 1 for a prime q = 3 (mod 4)."""
    squares = {(x * x) % q for x in range(1, q)}
    chi = np.array([0 if x == 0 else (1 if x in squares else -1) for x in range(q)])
    jacobsthal = np.array([[chi[(j - i) % q] for j in range(q)] for i in range(q)])
    s = np.zeros((q + 1, q + 1), dtype=np.int64)
    s[0, 1:], s[1:, 0], s[1:, 1:] = 1, -1, jacobsthal
    return s + np.eye(q + 1, dtype=np.int64)


def test_the_floor_is_not_the_limit_a_hadamard_matrix_fits_twice_the_width(course):
    text = section_text(course, "mlp-fact-store", "superposition")
    term = plain(glossary(course)["superposition"]["definition_html"])
    twelve, small = paley(11), sylvester(4)
    product = np.kron(twelve, small)  # what a Kronecker product of Hadamard matrices stays
    widest = 1 / math.sqrt(12 * 1024)  # |cos| between a basis vector and a scaled column

    assert (twelve @ twelve.T == 12 * np.eye(12)).all()
    assert (sylvester(1024) @ sylvester(1024).T == 1024 * np.eye(1024)).all()
    assert (product @ product.T == 48 * np.eye(48)).all()
    assert GPT3_WIDTH == 12 * 1024
    # The basis and the matrix's columns, scaled: 2N directions, every pair within this much.
    assert f"{math.degrees(math.asin(widest)):.2f}" == "0.52"
    assert "gives 24,576 directions in 12,288 dimensions" in text
    assert 2 * GPT3_WIDTH == 24_576
    assert "with every pair within about half a degree of 90°" in text
    assert "fits 24,576 within about half a degree" in term


def test_a_looser_band_costs_more_interference(course):
    text = section_text(course, "mlp-fact-store", "superposition")
    overlap = math.sin(math.radians(5))

    assert f"{overlap:.2f}" == "0.09"
    assert "an overlap can reach sin 5° ≈ 0.09" in text
    assert round(1 / overlap) == 11
    assert "the threshold is then only about eleven times larger" in text


def test_the_interference_the_lesson_quotes_is_what_the_grader_accepts(course):
    html = section_html(course, "mlp-fact-store", "superposition")
    text = plain(html)
    spread = 1 / math.sqrt(GPT3_WIDTH)
    typical = [
        [f"{n:,}", f"{1 / math.sqrt(n):.3f}", f"about {math.degrees(1 / math.sqrt(n)):.{p}f}°"]
        for n, p in ((10, 0), (100, 1), (GPT3_WIDTH, 1))
    ]

    assert table_rows(html)[1:4] == typical
    quoted = re.search(r"typically about ±(0\.\d+) in 12,288 dimensions", text)
    variant = get_family("near_orthogonal").pose({"dims": GPT3_WIDTH, "measure": "cosine"})

    assert quoted is not None
    assert quoted[1] == f"{spread:.3f}" == "0.009"
    assert grade(variant, quoted[1]).status == "correct"
    assert grade(variant, "0.01").status != "correct"  # the old ±0.01 was 11% off
    assert "a threshold of −1 is more than a hundred times larger" in text
    assert 1 / spread > 100
    assert "±0.01" not in text


def test_every_question_on_superposition_states_the_band_and_the_interference(course):
    questions = course.get(
        "/api/v1/questions/", params={"lesson": "mlp-fact-store", "page_size": 100}
    ).json()["results"]
    keys = {
        "mlp-superposition-more-features-than-dimensions",
        "mlp-polysemantic-neuron-interview",
    }
    answers = {}
    for question in (q for q in questions if q["key"] in keys):
        # Free text: the model answer is what a reveal shows, before the learner rates.
        reply = course.post(f"/api/v1/questions/{question['id']}/reveal/", {})
        answers[question["key"]] = plain(reply.json()["model_answer_html"])

    assert (
        f"about {powers(guaranteed(GPT3_WIDTH, 5))}" in answers["mlp-polysemantic-neuron-interview"]
    )
    superposition = answers["mlp-superposition-more-features-than-dimensions"]
    assert f"only {math.floor(guaranteed(GPT3_WIDTH, 2))} within 2° of 90°" in superposition
    assert f"about {powers(guaranteed(GPT3_WIDTH, 5))} within 5°" in superposition
    assert "about ±0.009 at 12,288 dimensions" in superposition
    assert "±0.01" not in superposition


def test_the_glossary_states_superpositions_band(course):
    term = plain(glossary(course)["superposition"]["definition_html"])

    assert f"about {powers(guaranteed(GPT3_WIDTH, 5))} directions" in term
    assert f"but only {math.floor(guaranteed(GPT3_WIDTH, 1))} within 1°" in term


# Order without positions: true of unmasked attention only


def test_the_course_says_a_causal_mask_already_lets_order_in(course):
    positions = section_text(course, "embeddings-and-positions", "positions")
    term = plain(glossary(course)["positional-encoding"]["definition_html"])
    question = next(
        q
        for q in course.get(
            "/api/v1/questions/", params={"lesson": "embeddings-and-positions"}
        ).json()["results"]
        if q["key"] == "embedding-position-schemes"
    )
    choices = {
        plain(c["text_html"]): c["id"]
        for c in course.get(f"/api/v1/questions/{question['id']}/").json()["choices"]
    }
    unmasked = next(text for text in choices if text.startswith("Without a position signal"))
    masked = next(text for text in choices if text.startswith("A decoder with a causal mask"))
    verdicts = course.post(
        f"/api/v1/questions/{question['id']}/answers/",
        {"choice_ids": [choices[unmasked]], "mode": "practice"},
    ).json()["choices"]
    right = {c["id"] for c in verdicts if c["correct"]}

    assert "Without a mask it treats its inputs as an unordered set" in positions
    assert "already breaks the symmetry" in positions
    assert "causal mask lets some order leak in" in term
    assert "or a causal mask" in unmasked
    assert choices[unmasked] in right
    assert choices[masked] not in right


# Training details


def test_biases_start_at_zero_not_at_random(course):
    text = section_text(course, "neurons", "where-weights-come-from")
    question = next(
        q
        for q in course.get("/api/v1/questions/", params={"lesson": "neurons"}).json()["results"]
        if q["key"] == "neuron-training-loop-facts"
    )
    choices = course.get(f"/api/v1/questions/{question['id']}/").json()["choices"]
    verdicts = course.post(
        f"/api/v1/questions/{question['id']}/answers/",
        {"choice_ids": [choices[0]["id"]], "mode": "practice"},
    ).json()["choices"]
    correct = {v["id"] for v in verdicts if v["correct"]}
    right = [plain(c["text_html"]) for c in choices if c["id"] in correct]

    assert "biases need no randomness and usually start at zero" in text
    assert "Every weight and bias gets a small random value" not in text
    fresh = "Training starts from small random weights; the biases can simply start at zero."
    assert fresh in right
    assert not any("random weights and biases" in choice for choice in right)


def test_pre_norm_needs_less_warm_up_not_none_and_softmax_is_nonlinear(course):
    norms = section_text(course, "block-anatomy", "layer-norm")
    attention = section_text(course, "block-anatomy", "attention-gathers")

    assert "without the careful learning-rate warm-up" not in norms
    assert "Xiong et al. trained pre-norm models with no warm-up at all" in norms
    assert "still ramp the learning rate up over a short warm-up" in norms
    assert "the softmax is nonlinear" in attention
    assert "followed by a linear map. It *routes*" not in attention


def test_the_residual_stream_is_not_another_name_for_a_residual_connection(course):
    terms = glossary(course)
    searched = course.get("/api/v1/glossary/", params={"search": "skip connection"}).json()

    assert terms["residual-stream"]["aliases"] == []
    assert "skip connection" in terms["residual-connection"]["aliases"]
    assert [term["slug"] for term in searched["results"]] == ["residual-connection"]


# Free lessons, Pro lessons and the questions that follow their sections


def test_no_free_lesson_requires_a_pro_one(course):
    lessons = course.get("/api/v1/courses/transformers/").json()["lessons"]
    access = {lesson["slug"]: lesson["access"] for lesson in lessons}

    for lesson in (slug for slug, kind in access.items() if kind == "free"):
        prerequisites = course.get(f"/api/v1/lessons/{lesson}/").json()["prerequisites"]
        assert [p for p in prerequisites if access[p] == "pro"] == [], lesson


def test_the_blocks_your_turn_is_a_question_after_its_section_not_an_answer_in_it(api, course):
    api.authenticate(UserFactory(plan=User.Plan.FREE))
    lesson = api.get("/api/v1/lessons/block-anatomy/").json()
    section = next(s for s in lesson["sections"] if s["slug"] == "attention-gathers")
    (asked,) = [
        q
        for q in api.get("/api/v1/questions/", params={"lesson": "block-anatomy"}).json()["results"]
        if q["key"] == "mlp-works-per-token"
    ]
    text = plain(section["body_html"])

    assert asked["section"] == "attention-gathers"
    assert asked["id"] in section["question_ids"]
    assert "Your turn" in text
    assert "Answer the first question below this section" in text
    assert "**No.**" not in section["body_html"]
    assert " No. " not in text


def test_a_percentage_question_reads_66_2_with_or_without_the_sign(course):
    (share,) = [
        q
        for q in course.get(
            "/api/v1/questions/", params={"lesson": "mlp-fact-store", "page_size": 100}
        ).json()["results"]
        if q["key"] == "mlp-gpt3-share-of-weights-interview"
    ]
    mlp = 96 * 8 * GPT3_WIDTH**2
    total = 96 * 12 * GPT3_WIDTH**2 + 2 * 50_257 * GPT3_WIDTH
    exact = 100 * mlp / total

    def answer(typed: str) -> dict:
        url = f"/api/v1/questions/{share['id']}/answers/"
        return course.post(url, {"response": typed, "mode": "practice"}).json()

    assert f"{exact:.1f}" == "66.2"
    for typed in ("66.2", "66.2%", "66.2 %", f"{exact:.4f}", "66.20 percent"):
        assert answer(typed)["status"] == "correct", typed
    assert answer("66.3")["status"] == "incorrect"  # 0.1 off the exact share, not the key
    assert answer("66.7%")["misconception"]["code"] == "blocks_only"
    assert answer(f"{exact / 100:.3f}")["misconception"]["code"] == "fraction_not_percent"
    assert answer("66.2")["correct_answer"] == "66.2%"
    # The key and its mistakes are the exact shares, to the four decimals written down.
    stored = Question.objects.get(pk=share["id"])
    mistakes = {m["code"]: m["value"] for m in stored.mistakes}
    attention = 100 * 96 * 4 * GPT3_WIDTH**2 / total
    assert stored.answer == round(exact, 4) == 66.1966
    assert mistakes["attention_share"] == round(attention, 4)
    assert mistakes["fraction_not_percent"] == round(exact / 100, 6)
    assert mistakes["blocks_only"] == round(100 * 8 / 12, 4)
    assert answer(f"{attention:.1f}")["misconception"]["code"] == "attention_share"


def test_a_rounded_count_is_called_right_but_not_exact(course):
    (count,) = [
        q
        for q in course.get(
            "/api/v1/questions/", params={"lesson": "block-anatomy", "page_size": 100}
        ).json()["results"]
        if q["key"] == "block-params-gpt2-medium-interview"
    ]
    url = f"/api/v1/questions/{count['id']}/answers/"

    rounded = course.post(url, {"response": "12.6M", "mode": "practice"}).json()
    wrong = course.post(url, {"response": "12.5M", "mode": "practice"}).json()

    assert (rounded["status"], rounded["score"], rounded["misconception"]) == (
        "incorrect",
        0.0,
        None,
    )
    assert "Right, but this asks for the exact count: 12,596,224." in rounded["feedback_html"]
    assert "Not quite" not in rounded["feedback_html"]
    assert wrong["feedback_html"].startswith("<p>Not quite.</p>")


def test_a_generated_count_given_rounded_is_also_right_but_not_exact(course):
    variant = get_family("mlp_params").pose({"d_model": 768, "ratio": 4, "model": "GPT-2 small"})

    graded = grade(variant, "4.7M")

    assert (graded.status, graded.rounded) == ("incorrect", True)
    assert np.isclose(variant.answer, 4_722_432)


def test_no_glossary_alias_is_a_word_the_lessons_use_in_another_sense(course):
    """A term links on its first appearance in a section; a common word as an alias would link
    "unit vectors" to the neuron and "negative values" to attention's values."""
    terms = list(GlossaryTerm.objects.live())
    aliases = {alias.casefold() for term in terms for alias in term.aliases}
    assert not aliases & {"unit", "units", "layer", "layers", "value", "values"}
    matcher = richtext.glossary((t.slug, [t.term, *t.aliases]) for t in terms)
    linked_word = re.compile(r'class="link-button term"[^>]*>(unit|values?|layers?)</button>', re.I)
    for lesson, section, words in [
        ("mlp-fact-store", "superposition", "unit vectors"),
        ("mlp-fact-store", "two-dense-layers", "negative values"),
    ]:
        html = richtext.prepare(section_html(course, lesson, section), matcher).html
        assert words in plain(html), (lesson, section)
        assert not linked_word.search(html), (lesson, section)
