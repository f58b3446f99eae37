"""Formulas in lesson Markdown become MathML when the course is loaded, and nothing unsafe rides
along with them."""

import re
from html.parser import HTMLParser

import pytest
from django.conf import settings

from course import markdown
from course.content.files import read_content
from course.models import Section
from tests.content import load_shipped
from tests.course.test_load_content import lesson, load, load_failing, write_content
from tests.quizzes.test_load_questions import numeric, write_questions


class Tags(HTMLParser):
    """Every start tag of a fragment, with its attributes."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def test_inline_math_becomes_mathml_with_its_source_kept():
    html = markdown.render("The square is $x^2$ here.")

    assert html == (
        '<p>The square is <math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">'
        "<semantics><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow>"
        '<annotation encoding="application/x-tex">x^2</annotation></semantics></math> here.</p>\n'
    )


def test_display_math_on_its_own_lines_becomes_block_mathml():
    html = markdown.render("Softmax:\n\n$$\np_i = \\frac{e^{z_i}}{\\sum_j e^{z_j}}\n$$\n\nDone.")

    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in html
    assert "<mfrac><mrow><msup><mi>e</mi>" in html
    assert "<msub><mo>∑</mo><mi>j</mi></msub>" in html
    assert '<annotation encoding="application/x-tex">p_i = \\frac{e^{z_i}}{\\sum_j e^{z_j}}' in html
    assert html.startswith("<p>Softmax:</p>")
    assert html.endswith("<p>Done.</p>\n")


def test_double_dollars_inside_a_paragraph_are_display_math_too():
    html = markdown.render("The update $$x + f(x)$$ keeps x.")

    assert html.count('display="block"') == 1
    assert "$" not in html


def test_the_attention_formula_keeps_its_structure():
    latex = r"\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V"

    html = markdown.render(f"$${latex}$$")

    assert "<mo>softmax</mo>" in html
    assert '<mo stretchy="true" fence="true" form="prefix">(</mo><mfrac>' in html
    assert "<msup><mi>K</mi><mo>⊤</mo></msup>" in html
    assert "<msqrt><mrow><msub><mi>d</mi><mi>k</mi></msub></mrow></msqrt>" in html


@pytest.mark.parametrize(
    "source",
    [
        r"$\href{javascript:alert(1)}{x}$",
        r"$<script>alert(1)</script>$",
        r"$\style{color:red;background:url(https://example.com/x)}{x}$",
        r"$\class{evil}{x}$",
        r"$\color{red}{x} \colorbox{red}{x} \fcolorbox{red}{blue}{x}$",
        r"$\text{<img src=x onerror=alert(1)>}$",
        r"$\text{<img/src=x/onerror=alert(1)>}$",
        r"$\text{<script>alert(1)</script>}$",
        r"$\mathrm{</math><img src=x onerror=alert(1)>}$",
        r"$$\text{</annotation></semantics></math><script>alert(1)</script>}$$",
    ],
)
def test_markup_and_attributes_smuggled_through_latex_never_survive(source):
    html = markdown.render(source)

    tags = Tags(html).found
    names = {name for tag in tags for name in tag[1]}
    assert {tag for tag, _ in tags} <= {"p", "code"} | markdown._MATHML_TAGS
    assert not {"href", "style", "class", "mathcolor", "mathbackground"} & names
    assert not any(name.startswith("on") for name in names)
    assert "<script" not in html
    assert "<img" not in html


@pytest.mark.parametrize(
    "prose",
    [
        "It costs $5 and $6 more.",
        "Between $1,000 and $2,000 a month.",
        "A bill of 5$ and 6$.",
        "Prices: $5, $10, $20.",
        "Spaces stay prose: $ x $.",
    ],
)
def test_dollars_in_prose_stay_text(prose):
    html = markdown.render(prose)

    assert "<math" not in html
    assert html == f"<p>{prose}</p>\n"
    assert list(markdown.formulas(prose)) == []


def test_an_escaped_dollar_and_a_dollar_in_code_stay_text():
    html = markdown.render(r"Write \$x\$ or `$x$` to show the dollars.")

    assert "<math" not in html
    assert "$x$" in html
    assert "<code>$x$</code>" in html


@pytest.mark.parametrize(
    ("latex", "reason"),
    [
        (r"\frac{", "it ends before a command has all its arguments"),
        (r"\left( x", "extra left or missing right"),
        (r"x_1_2", "double subscripts"),
        (r"\begin{matrix}a", "missing end"),
        (r"\sqrtt{d}", "unknown command \\sqrtt"),
        (r"\begin{aligned}a &= b\end{aligned}", "'&' outside a matrix or an alignment it knows"),
    ],
)
def test_a_formula_that_cannot_be_typeset_falls_back_to_its_source(latex, reason):
    source = f"Bad: ${latex}$ here."

    html = markdown.render(source)

    assert "<math" not in html
    assert f"<code>{latex.replace('&', '&amp;')}</code>" in html
    assert markdown.formula_problems(source) == [f"cannot typeset ${latex}$: {reason}"]


@pytest.mark.django_db
def test_a_formula_that_cannot_be_typeset_is_a_content_problem(tmp_path):
    body = "Fine $x^2$, broken $\\frac{$."
    root = write_content(
        tmp_path,
        [lesson("one", sections=[{"slug": "first", "title": "First", "body": body}])],
        glossary=[{"slug": "ln", "term": "LN", "definition": "$\\sqrt$ of it"}],
    )
    write_questions(root, [numeric(explanation="Take $x_1_2$.")])

    problems = load_failing(root)

    assert (
        "courses/demo/lessons/one.yaml: section 1 'first': body: cannot typeset $\\frac{$:"
        in problems
    )
    assert "courses/demo/glossary.yaml: term 1 'ln': definition: cannot typeset $\\sqrt$:" in (
        problems
    )
    assert (
        "courses/demo/questions/one.yaml: question 1 'weights': explanation:"
        " cannot typeset $x_1_2$: double subscripts" in problems
    )
    assert Section.objects.count() == 0


@pytest.mark.django_db
def test_a_choice_with_a_broken_formula_names_the_choice(tmp_path):
    root = write_content(tmp_path, [lesson("one")])
    choice = {
        "key": "pick",
        "section": "first",
        "kind": "single_choice",
        "topic": "mlp",
        "difficulty": 1,
        "prompt": "Which is $4d^2$?",
        "choices": [{"text": "$4d^$", "correct": True}, {"text": "B"}],
    }
    write_questions(root, [choice])

    assert "question 1 'pick': choices.0.text: cannot typeset $4d^$" in load_failing(root)


@pytest.mark.django_db
def test_a_loaded_section_holds_mathml(tmp_path):
    body = "The residual update:\n\n$$\nx \\leftarrow x + f(x)\n$$\n\nand $d_\\text{model}$."
    root = write_content(
        tmp_path, [lesson("one", sections=[{"slug": "first", "title": "First", "body": body}])]
    )

    load(root)

    html = Section.objects.get().body_html
    assert html.count("<math") == 2
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in html
    assert "<msub><mi>d</mi><mtext>model</mtext></msub>" in html


@pytest.mark.django_db
def test_the_shipped_attention_lesson_typesets_its_formula():
    load_shipped()

    html = Section.objects.get(lesson__slug="attention", slug="queries-keys-values").body_html

    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in html
    assert "<mo>Attention</mo>" in html
    assert "<mo>softmax</mo>" in html
    assert "$" not in html


def shipped_markdown() -> list[str]:
    """Every Markdown field of the shipped course: sections, glossary, questions and choices."""
    content = read_content(settings.CONTENT_DIR)
    texts = [
        text
        for course in content.courses
        for text in [
            *(section["body"] for lesson in course.lessons for section in lesson.sections),
            *(term["definition"] for term in course.glossary),
        ]
    ]
    for question in content.parts["questions"]:
        fields = question.fields
        texts += [fields["prompt"], fields["explanation"], fields["model_answer"]]
        texts += [c[name] for c in fields.get("choices") or [] for name in ("text", "explanation")]
    return texts


def test_every_formula_in_the_shipped_content_is_typeset():
    texts = shipped_markdown()
    found = [(latex, display) for text in texts for latex, display in markdown.formulas(text)]

    problems = [problem for text in texts for problem in markdown.formula_problems(text)]
    typeset = [markdown.mathml(latex, display=display) for latex, display in found]

    assert problems == []
    assert len(found) >= 50
    assert any(display for _, display in found)
    assert not all(display for _, display in found)
    assert all(re.match(r"<math [^>]*><semantics><mrow>", html) for html in typeset)


def test_a_line_of_its_own_places_a_lab_or_a_diagram_and_nothing_else_does():
    source = (
        "Some text.\n\n::: lab toy-mlp token=jordan step=2\n\n::: diagram pre-norm-block\n\n"
        "Inline ::: lab toy-mlp is text.\n\n    ::: lab toy-mlp\n"
    )

    html = markdown.render(source)

    assert html.count("<div") == 2
    assert '<div data-embed="lab" data-name="toy-mlp" data-state="token=jordan step=2">' in html
    assert '<div data-embed="diagram" data-name="pre-norm-block" data-state="">' in html
    assert "<p>Inline ::: lab toy-mlp is text.</p>" in html
    assert "<pre><code>::: lab toy-mlp" in html  # indented: code
    assert [(e.kind, e.name, e.state, e.line) for e in markdown.embeds(source)] == [
        ("lab", "toy-mlp", "token=jordan step=2", 3),
        ("diagram", "pre-norm-block", "", 5),
    ]


@pytest.mark.parametrize(
    "source",
    [
        '<div data-embed="lab" data-name="toy-mlp" data-state="">x</div>',
        '::: lab toy-mlp" onclick="alert(1)',
        "::: lab <script>alert(1)</script>",
        "$$x$$",
        "a $$x$$ b",
    ],
)
def test_no_one_writes_a_div_but_the_embed_rule_and_its_attributes_are_escaped(source):
    html = markdown.render(source)

    tags = Tags(html).found
    names = {name for tag in tags for name in tag[1]}
    assert {tag for tag, _ in tags} <= {"p", "div"} | markdown._MATHML_TAGS
    assert names <= {"data-embed", "data-name", "data-state", "xmlns", "display", "encoding"}
    assert "<script" not in html
    divs = [attributes for tag, attributes in tags if tag == "div"]
    assert all(list(attributes) == ["data-embed", "data-name", "data-state"] for attributes in divs)
    assert len(divs) == (1 if source.startswith(":::") else 0)
