"""The interview bank: its files checked and loaded (figures recomputed, loose numbers refused,
keys unique across the bank and the courses), archived when gone, and read by anyone on the
pages and over the API, by category and level and by search."""

from __future__ import annotations

import functools
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes import bank_rules
from quizzes.models import InterviewCategory, InterviewEntry, Question
from tests.conftest import assert_problem
from tests.course.test_load_content import lesson, load, load_failing, write_content

pytestmark = pytest.mark.django_db(transaction=True)

ANSWER = (
    "Scores are divided by the square root of the key width because a dot product of d "
    "independent entries of variance one has variance d. Large scores push the softmax to pick "
    "one key outright, where its gradient all but vanishes; the division brings the spread back "
    "to about one whatever the width, so training stays stable as heads get wider."
)
NOTES = (
    "With $d_k = 64$ the raw scores have a standard deviation of 8; the scaled ones have one. "
    "A softmax over scores that far apart puts nearly all of its weight on the largest, and its "
    "Jacobian, $\\mathrm{diag}(p) - pp^T$, is then close to zero everywhere. The scaling is a "
    "choice about initial conditions: a model could learn smaller query and key weights instead, "
    "but starting in the saturated region slows or stalls learning. Some later models fold the "
    "factor into the initialisation of the query projection, or normalise queries and keys "
    "(QK-norm), which fixes the scale in another way. For 128-wide heads the spread would be "
    "11.3 before scaling."
)


def bank_question(key: str, **overrides) -> dict:
    return {
        "key": key,
        "level": "junior",
        "question": f"Why are attention scores divided by the square root of d ({key})?",
        "model_answer": ANSWER,
        "notes": NOTES,
        "key_points": [
            "A dot product of d unit-variance entries has variance d.",
            "Large scores saturate the softmax and kill its gradient.",
            "Dividing by sqrt(d) restores a spread of about one.",
        ],
        "wrong_turns": ["Saying it prevents overflow: the reason is the gradient."],
        "follow_ups": ["What else could keep the scores small?"],
        "related": [],
        "sources": ["Vaswani, A., et al. (2017). Attention Is All You Need. NeurIPS 2017."],
        "givens": ["128"],
        "figures": [{"shown": "11.3", "value": "sqrt(128)"}],
        **overrides,
    }


def write_bank(root: Path, files: dict[str, list[dict]], categories: list[str] | None = None):
    folder = root / "interview"
    (folder / "questions").mkdir(parents=True, exist_ok=True)
    for old in (folder / "questions").glob("*.yaml"):
        old.unlink()
    slugs = categories if categories is not None else list(files)
    (folder / "categories.yaml").write_text(
        yaml.safe_dump(
            [{"slug": s, "title": s.title(), "summary": f"All about {s}."} for s in slugs]
        )
    )
    for slug, questions in files.items():
        (folder / "questions" / f"{slug}.yaml").write_text(yaml.safe_dump(questions))
    return root


@pytest.fixture
def root(tmp_path):
    write_content(tmp_path, [lesson("first")])
    (tmp_path / "courses" / "demo" / "questions").mkdir()
    (tmp_path / "courses" / "demo" / "questions" / "first.yaml").write_text(
        yaml.safe_dump(
            [
                {
                    "key": "demo-taken",
                    "section": "first",
                    "kind": "free_text",
                    "topic": "attention",
                    "difficulty": 1,
                    "prompt": "Say something.",
                    "model_answer": "Something.",
                }
            ]
        )
    )
    return tmp_path


@pytest.fixture
def loaded(root):
    write_bank(
        root,
        {
            "attention": [
                bank_question("attention-scale", lesson="demo/first", related=["attention-kv"]),
                bank_question(
                    "attention-kv",
                    level="senior",
                    question="How large is the KV cache of a long chat?",
                    diagram="pre-norm-block",
                ),
            ],
            "inference": [bank_question("inference-batching", level="mid")],
        },
    )
    load(root)
    return root


# --- loading ---------------------------------------------------------------------------------


def test_the_bank_loads_as_questions_without_a_lesson_and_a_second_load_changes_nothing(loaded):
    questions = Question.objects.interview_bank().order_by("category__position", "position")

    assert [(q.key, q.category.slug, q.level) for q in questions] == [
        ("attention-scale", "attention", "junior"),
        ("attention-kv", "attention", "senior"),
        ("inference-batching", "inference", "mid"),
    ]
    first = questions[0]
    assert (first.lesson, first.section, first.kind, first.interview) == (
        None,
        None,
        "free_text",
        True,
    )
    assert first.entry.teaching_lesson.slug == "first"
    assert first.entry.key_points[0].startswith("A dot product")
    assert "11.3" in first.entry.notes_html
    assert "Why are attention scores divided" in first.entry.search_title
    assert not Question.objects.live().filter(category__isnull=False).exists()
    assert "Nothing changed" in load(loaded)


def test_a_question_or_category_gone_from_the_files_is_archived(loaded):
    write_bank(loaded, {"attention": [bank_question("attention-scale")], "inference": []})
    (loaded / "interview" / "questions" / "inference.yaml").unlink()
    write_bank(loaded, {"attention": [bank_question("attention-scale")]})

    load(loaded)

    assert list(Question.objects.interview_bank().values_list("key", flat=True)) == [
        "attention-scale"
    ]
    assert Question.objects.get(key="attention-kv").archived_at is not None
    assert InterviewCategory.objects.get(slug="inference").archived_at is not None
    assert Question.objects.get(key="demo-taken").archived_at is None  # the course's stay


def test_changing_what_counts_as_right_raises_the_version(root):
    numeric = bank_question(
        "inference-cache-bytes",
        question="How many bytes, to the nearest byte?",
        answer=11.3137,
        tolerance={"relative": 0.01},
        mistakes=[{"code": "variance", "value": 128, "message": "That is the variance."}],
        solution_steps=["The variance is 128, so the spread is sqrt(128) = 11.3."],
        figures=[
            {"shown": "11.3", "value": "sqrt(128)"},
            {"shown": "11.3137", "value": "sqrt(128)"},
        ],
        givens=["128"],
    )
    numeric["question"] += " It is 11.3137 or so."
    write_bank(root, {"inference": [numeric]})
    load(root)
    question = Question.objects.get(key="inference-cache-bytes")
    assert (question.kind, question.answer, question.version) == ("numeric", 11.3137, 1)

    numeric["tolerance"] = {"relative": 0.05}
    write_bank(root, {"inference": [numeric]})
    load(root)

    question.refresh_from_db()
    assert question.version == 2


def bad(case: str) -> tuple[dict, str, str]:
    """A question breaking one rule, the field the loader names, and words of its message."""
    cases = {
        "figure_wrong": (
            bank_question("attention-x", figures=[{"shown": "11.3", "value": "sqrt(129)"}]),
            "figures",
            "'11.3' is written, but sqrt(129) = 11.3578",
        ),
        "figure_not_in_text": (
            bank_question(
                "attention-x",
                figures=[
                    {"shown": "11.3", "value": "sqrt(128)"},
                    {"shown": "42.0", "value": "42"},
                ],
            ),
            "figures",
            "'42.0' is not in the question's text",
        ),
        "loose_number": (bank_question("attention-x", givens=[]), "figures", "128"),
        "code_in_a_figure": (
            bank_question(
                "attention-x", figures=[{"shown": "11.3", "value": "__import__('os').getpid()"}]
            ),
            "figures",
            "only numbers",
        ),
        "short_answer": (
            bank_question("attention-x", model_answer="Too short."),
            "model_answer",
            "2 words",
        ),
        "two_key_points": (
            bank_question("attention-x", key_points=["One.", "Two."]),
            "key_points",
            "2 items",
        ),
        "bad_level": (bank_question("attention-x", level="staff"), "level", "junior, mid, senior"),
        "unknown_field": (bank_question("attention-x", hint="free"), "hint", "not a field"),
        "unknown_lesson": (
            bank_question("attention-x", lesson="demo/nowhere"),
            "lesson",
            "no lesson 'demo/nowhere'",
        ),
        "unknown_related": (
            bank_question("attention-x", related=["attention-nowhere"]),
            "related",
            "no bank question 'attention-nowhere'",
        ),
        "unknown_diagram": (
            bank_question("attention-x", diagram="venn"),
            "diagram",
            "no diagram 'venn'",
        ),
        "course_key": (bank_question("demo-taken"), "key", "a course question has this key"),
        "bad_formula": (
            bank_question("attention-x", notes=NOTES + " And $\\frac{1}{$ more."),
            "notes",
            "",
        ),
    }
    return cases[case]


@pytest.mark.parametrize(
    "case",
    [
        "figure_wrong",
        "figure_not_in_text",
        "loose_number",
        "code_in_a_figure",
        "short_answer",
        "two_key_points",
        "bad_level",
        "unknown_field",
        "unknown_lesson",
        "unknown_related",
        "unknown_diagram",
        "course_key",
        "bad_formula",
    ],
)
def test_a_question_breaking_a_rule_stops_the_load_naming_file_question_and_field(root, case):
    question, field, words = bad(case)
    write_bank(root, {"attention": [question]})

    errors = load_failing(root)

    assert "interview/questions/attention.yaml" in errors
    assert f"{field}:" in errors or f": {field}" in errors, errors
    assert words in errors, errors
    assert not Question.objects.filter(category__isnull=False).exists()


def test_a_key_used_twice_in_the_bank_is_refused(root):
    write_bank(
        root,
        {"attention": [bank_question("attention-a")], "inference": [bank_question("attention-a")]},
    )

    assert "also in" in load_failing(root)


@pytest.mark.parametrize("slug", ["q", "mock"])
def test_a_category_may_not_take_the_name_of_a_bank_page(root, slug):
    write_bank(root, {slug: [bank_question("attention-a")]})

    assert f"names a page of the bank (/interview/{slug}/)" in load_failing(root)


def test_every_category_needs_its_file_and_every_file_its_category(root):
    write_bank(root, {"attention": [bank_question("attention-a")]}, categories=["inference"])

    errors = load_failing(root)

    assert "no category 'attention'" in errors
    assert "inference.yaml" in errors


# --- the rules, one by one -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shown", "value", "half"),
    [
        ("4,722,432", 4_722_432, 0.5),
        ("1.4", 1.4, 0.05),
        ("12.5%", 12.5, 0.05),
        ("1.4 × 10²³", 1.4e23, 0.05e23),
        ("3.1e23", 3.1e23, 0.05e23),
        ("≈ 6.5 GB", 6.5, 0.05),
        ("−0.17", -0.17, 0.005),
    ],
)
def test_a_shown_figure_says_its_value_to_its_written_digits(shown, value, half):
    written, allowed = bank_rules.shown_number(shown)

    assert written == pytest.approx(value)
    assert allowed == pytest.approx(half)


@pytest.mark.parametrize(
    "expression",
    ["__import__('os')", "open('x')", "(1).real", "x + 1", "[1, 2]", "2 ** 10000", "lambda: 1"],
)
def test_a_figures_value_is_arithmetic_and_nothing_else(expression):
    with pytest.raises(bank_rules.FigureError):
        bank_rules.evaluate(expression)


def test_figures_are_computed_with_the_functions_authors_need():
    assert bank_rules.evaluate("2*768*3072 + 3072 + 768") == 4_722_432
    assert bank_rules.evaluate("ceil(log2(50257))") == 16
    assert bank_rules.evaluate("1_000 / 8") == 125
    assert bank_rules.figure_problem("1.41", "sqrt(2)") is None
    assert bank_rules.figure_problem("1.42", "sqrt(2)") is not None


def test_numbers_in_code_joined_to_letters_or_years_are_not_figures():
    text = "GPT-2 in fp16 (2019) uses `768` wide heads; 7B models; 0.9 and 4,096 and 12 and 1.5."

    assert bank_rules.checked_numbers(text) == ["0.9", "4,096", "1.5"]


# --- reading it: pages --------------------------------------------------------------------------


@pytest.fixture
def client(client):
    client.get = functools.partial(client.get, secure=True)
    return client


def test_a_visitor_sees_the_categories_with_counts_per_level(client, loaded):
    page = client.get("/interview/").content.decode()

    assert "3 questions an ML interview may ask" in page
    assert "2 questions: 1 junior, 0 mid-level, 1 senior" in page
    assert 'href="/interview/attention/"' in page
    assert '<meta name="description" content="3 interview questions' in page


def test_a_category_page_lists_its_questions_and_filters_by_level(client, loaded):
    everything = client.get("/interview/attention/").content.decode()
    senior = client.get("/interview/attention/?level=senior").content.decode()
    nonsense = client.get("/interview/attention/?level=%00staff").content.decode()

    assert "/interview/q/attention-scale/" in everything
    assert "/interview/q/attention-kv/" in everything
    assert "/interview/q/attention-scale/" not in senior
    assert "/interview/q/attention-kv/" in senior
    assert "/interview/q/attention-scale/" in nonsense  # an unknown level reads as any level
    assert client.get("/interview/nowhere/").status_code == 404


def test_a_question_page_shows_everything_to_a_visitor(client, loaded):
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/interview/q/attention-scale/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "Model answer" in page
    assert "restores a spread of about one" in page  # a key point
    assert "Going deeper" in page
    assert "Saying it prevents overflow" in page
    assert "What else could keep the scores small?" in page
    assert "Vaswani, A., et al. (2017)" in page
    assert 'href="/courses/demo/first/"' in page
    assert 'href="/interview/q/attention-kv/"' in page  # related
    assert '<meta name="description" content="Scores are divided by the square root' in page
    assert len(queries) <= 6, [q["sql"] for q in queries.captured_queries]


def test_a_question_with_a_diagram_shows_it_with_its_text_version(client, loaded):
    page = client.get("/interview/q/attention-kv/").content.decode()

    assert '<figure class="diagram-figure"' in page
    assert "In words" in page


def test_an_archived_or_unknown_question_is_not_found(client, loaded):
    Question.objects.filter(key="attention-kv").update(archived_at="2026-01-01T00:00:00Z")

    assert client.get("/interview/q/attention-kv/").status_code == 404
    assert client.get("/interview/q/demo-taken/").status_code == 404  # a course question
    assert client.get("/interview/q/nowhere/").status_code == 404


@pytest.mark.parametrize(
    ("search", "found"),
    [
        ("KV cache", ["attention-kv"]),
        ("kv CACHE", ["attention-kv"]),
        ("square root", ["attention-scale", "attention-kv", "inference-batching"]),
        ("nothing like this", []),
    ],
)
def test_search_finds_questions_by_their_words(client, loaded, search, found):
    page = client.get("/interview/", {"q": search}).content.decode()

    for key in ["attention-scale", "attention-kv", "inference-batching"]:
        assert (f"/interview/q/{key}/" in page) == (key in found), key


@pytest.mark.parametrize(
    "search", ["\x00", "a" * 10_000, "'; DROP TABLE x; --", "!!! & | :*", "<b>"]
)
def test_any_search_is_answered_without_an_error(client, loaded, search):
    response = client.get("/interview/", {"q": search})

    assert response.status_code == 200
    assert "<b>" not in response.content.decode().split("<main", 1)[1]


# --- reading it: the API -----------------------------------------------------------------------


def test_the_categories_over_the_api_count_each_level(api, loaded):
    body = api.get("/api/v1/interview/categories/").json()

    assert body == [
        {
            "slug": "attention",
            "title": "Attention",
            "summary": "All about attention.",
            "counts": {"junior": 1, "mid": 0, "senior": 1},
        },
        {
            "slug": "inference",
            "title": "Inference",
            "summary": "All about inference.",
            "counts": {"junior": 0, "mid": 1, "senior": 0},
        },
    ]


def test_the_questions_over_the_api_are_open_and_filtered(api, loaded):
    every = api.get("/api/v1/interview/questions/").json()
    senior = api.get("/api/v1/interview/questions/", params={"level": "senior"}).json()
    inference = api.get("/api/v1/interview/questions/", params={"category": "inference"}).json()
    searched = api.get("/api/v1/interview/questions/", params={"search": "KV cache"}).json()

    assert [q["key"] for q in every["results"]] == [
        "attention-scale",
        "attention-kv",
        "inference-batching",
    ]
    first = every["results"][0]
    assert first["model_answer_html"].startswith("<p>Scores are divided")
    assert first["key_points"][2] == "Dividing by sqrt(d) restores a spread of about one."
    assert first["related"] == ["attention-kv"]
    assert first["lesson"] == "demo/first"
    assert [q["key"] for q in senior["results"]] == ["attention-kv"]
    assert [q["key"] for q in inference["results"]] == ["inference-batching"]
    assert [q["key"] for q in searched["results"]] == ["attention-kv"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"level": "staff"}, "level"),
        ({"updated_since": "yesterday"}, "updated_since"),
        ({"search": "a" * 201}, "search"),
    ],
)
def test_a_bad_filter_is_a_problem_naming_it(api, loaded, params, field):
    assert_problem(api.get("/api/v1/interview/questions/", params=params), 400, field=field)


def test_an_unchanged_bank_answers_304(api, loaded):
    first = api.get("/api/v1/interview/questions/")
    etag = first.headers["ETag"]
    again = api.get("/api/v1/interview/questions/", headers={"If-None-Match": etag})

    assert again.status_code == 304


def test_bank_stats_prints_the_counts(loaded):
    out = StringIO()
    call_command("bank_stats", stdout=out)

    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["category", "junior", "mid", "senior", "total", "numeric"]
    assert lines[2].split() == ["Attention", "1", "0", "1", "2", "0"]
    assert lines[-1].split() == ["all", "2", "categories", "1", "1", "1", "3", "0"]
    assert InterviewEntry.objects.count() == 3


def test_a_generated_question_shows_a_worked_example_the_same_on_every_visit(client, root):
    drill = bank_question("inference-weights-drill", generator="weight_memory")
    write_bank(root, {"inference": [drill]})
    load(root)

    first = client.get("/interview/q/inference-weights-drill/").content.decode()
    again = client.get("/interview/q/inference-weights-drill/").content.decode()

    question = Question.objects.get(key="inference-weights-drill")
    assert (question.kind, question.generator, question.answer) == (
        "numeric",
        "weight_memory",
        None,
    )
    assert "An example, worked" in first
    assert "How much memory do its weights take, in GB" in first
    assert "Answer: <strong>" in first

    def example(page: str) -> str:
        return page.split("An example, worked", 1)[1].split("</section>", 1)[0]

    assert example(first) == example(again)


def test_a_search_puts_questions_that_ask_about_it_before_those_that_mention_it(client, root):
    mentions = bank_question("attention-mentions", notes=NOTES + " Gradient clipping aside.")
    asks = bank_question(
        "attention-asks", question="Why does gradient clipping help when training attention?"
    )
    write_bank(root, {"attention": [mentions, asks]})
    load(root)

    page = client.get("/interview/", {"q": "gradient clipping"}).content.decode()

    assert page.index("attention-asks") < page.index("attention-mentions")


def test_a_question_archived_since_is_searched_no_more_in_the_bank_or_a_level(client, loaded):
    Question.objects.filter(key="attention-kv").update(archived_at="2026-01-01T00:00:00Z")
    InterviewCategory.objects.filter(slug="inference").update(archived_at="2026-01-01T00:00:00Z")

    whole = client.get("/interview/", {"q": "square root"}).content.decode()
    senior = client.get("/interview/", {"q": "square root", "level": "senior"}).content.decode()
    api = client.get("/api/v1/interview/questions/", {"search": "square root"}).json()

    assert "/interview/q/attention-scale/" in whole
    assert "/interview/q/attention-kv/" not in whole
    assert "/interview/q/inference-batching/" not in whole  # its category is archived
    assert "/interview/q/attention-kv/" not in senior
    assert [q["key"] for q in api["results"]] == ["attention-scale"]
