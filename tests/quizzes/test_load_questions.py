"""Questions load with the course: checked first, upserted by key, versioned by their answer."""

import pytest
import yaml

from quizzes.models import Choice, Question
from tests.course.test_load_content import lesson, load, load_failing, write_content

pytestmark = pytest.mark.django_db


def numeric(key="weights", **overrides):
    return {
        "key": key,
        "section": "first",
        "kind": "numeric",
        "topic": "mlp",
        "difficulty": 2,
        "prompt": "How many weights?",
        "answer": 8_000_000,
        "mistakes": [{"code": "one_matrix", "value": 4_000_000, "message": "One matrix."}],
        **overrides,
    }


def write_questions(root, questions, lesson_slug="one"):
    folder = root / "courses" / "demo" / "questions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{lesson_slug}.yaml").write_text(yaml.safe_dump(questions))
    return root


def test_questions_load_with_their_lesson_and_choices(tmp_path):
    root = write_content(tmp_path, [lesson("one")])
    choice = {
        "key": "pick",
        "section": "first",
        "kind": "single_choice",
        "topic": "mlp",
        "difficulty": 1,
        "prompt": "Which?",
        "choices": [{"text": "A", "correct": True}, {"text": "B"}],
    }
    write_questions(root, [numeric(), choice])

    output = load(root)

    assert "questions: 2 created" in output
    assert Question.objects.get(key="weights").lesson.slug == "one"
    assert Question.objects.get(key="weights").section.slug == "first"
    assert list(Choice.objects.values_list("is_correct", flat=True)) == [True, False]
    assert "Nothing changed" in load(root)


def test_a_changed_answer_raises_the_version_and_a_changed_wording_does_not(tmp_path):
    root = write_content(tmp_path, [lesson("one")])
    write_questions(root, [numeric()])
    load(root)

    write_questions(root, [numeric(prompt="How many weights, in all?")])
    load(root)
    reworded = Question.objects.get().version
    write_questions(root, [numeric(answer=8_000_001)])
    load(root)

    assert reworded == 1
    assert Question.objects.get().version == 2


def test_a_removed_question_is_archived(tmp_path):
    root = write_content(tmp_path, [lesson("one")])
    write_questions(root, [numeric(), numeric("other")])
    load(root)

    write_questions(root, [numeric()])
    load(root)

    assert Question.objects.get(key="other").archived_at is not None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (numeric(kind="essay"), "question 1 'weights': kind: \"essay\" is not a valid choice."),
        (numeric(answer="lots"), "question 1 'weights': answer: Must be a number."),
        (
            numeric(mistakes=[{"code": "same", "value": 8_000_000, "message": "x"}]),
            "question 1 'weights': mistakes: 'same' gives a value that is graded right",
        ),
        (
            numeric(interview=True),
            "question 1 'weights': model_answer: Free-text and interview questions need",
        ),
        (
            {**numeric(), "generator": "relu_neuron"},
            "question 1 'weights': answer: Give exactly one of answer, answer_interval",
        ),
        (
            {
                **{k: v for k, v in numeric().items() if k not in ("answer", "mistakes")},
                "kind": "single_choice",
                "choices": [{"text": "A"}, {"text": "B"}],
            },
            "choices: A single-choice question needs exactly 1 right choice, not 0.",
        ),
        (
            numeric(section="second"),
            "question 1 'weights': section: no section 'second' in lesson 'one';"
            " its sections are first",
        ),
        (
            {k: v for k, v in numeric().items() if k != "section"},
            "question 1 'weights': section: This field is required.",
        ),
        (
            numeric(
                answer=0.5,
                tolerance={"absolute": 0.005},
                mistakes=[
                    {"code": "no_scaling", "value": 0.3, "message": "x"},
                    {"code": "scaled_by_d_k", "value": 0.304, "message": "y"},
                ],
            ),
            "mistakes: 'no_scaling' and 'scaled_by_d_k' give values too close to tell apart",
        ),
        (numeric(unit="degrees"), "question 1 'weights': unit: \"degrees\" is not a valid choice."),
        (
            {
                **{k: v for k, v in numeric().items() if k not in ("answer", "mistakes")},
                "generator": "relu_neuron",
                "unit": "percent",
            },
            "question 1 'weights': generator: A generated question takes its key from the engine.",
        ),
    ],
    ids=[
        "kind",
        "answer-type",
        "mistake-is-right",
        "interview-answer",
        "two-keys",
        "no-right",
        "unknown-section",
        "no-section",
        "mistakes-too-close",
        "unknown-unit",
        "generated-unit",
    ],
)
def test_each_problem_names_the_question_and_field(tmp_path, question, expected):
    root = write_content(tmp_path, [lesson("one")])
    write_questions(root, [question])

    problems = load_failing(root)

    assert "courses/demo/questions/one.yaml: " in problems
    assert expected in problems
    assert Question.objects.count() == 0


def test_a_question_file_must_be_named_after_a_lesson(tmp_path):
    root = write_content(tmp_path, [lesson("one")])
    write_questions(root, [numeric()], lesson_slug="nope")

    assert "questions/nope.yaml: questions: -: no lesson 'nope'" in load_failing(root)


def test_keys_are_unique_across_files(tmp_path):
    root = write_content(tmp_path, [lesson("one"), lesson("two")])
    write_questions(root, [numeric()], lesson_slug="one")
    write_questions(root, [numeric()], lesson_slug="two")

    assert "key: duplicate key: also in" in load_failing(root)


def test_the_section_decides_whether_a_question_is_pro(tmp_path):
    sections = [
        {"slug": "first", "title": "First", "body": "Open to all.", "access": "free"},
        {"slug": "deeper", "title": "Deeper", "body": "For Pro.", "access": "pro"},
    ]
    root = write_content(tmp_path, [lesson("one", access="pro", sections=sections)])
    write_questions(root, [numeric(), numeric("pro-only", section="deeper")])

    load(root)

    assert Question.objects.get(key="weights").section.access == "free"
    assert Question.objects.get(key="pro-only").section.access == "pro"


def test_a_question_asked_in_percent_keeps_its_unit_and_a_new_unit_raises_the_version(tmp_path):
    root = write_content(tmp_path, [lesson("one")])
    share = numeric(answer=66.1966, tolerance={"absolute": 0.05}, mistakes=[])
    write_questions(root, [share])
    load(root)

    write_questions(root, [{**share, "unit": "percent"}])
    load(root)

    question = Question.objects.get()
    assert (question.unit, question.version) == ("percent", 2)
