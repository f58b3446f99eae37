"""Labs and diagrams inside the shipped lessons: each placed lab is its own form and result at
the state its line gives, ids prefixed so that six fit on one page; each diagram has its text
version beside it; a lab moved inside a lesson gets its result back under its own prefix."""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

import pytest

from course.web import diagrams
from engine import labs
from tests.content import load_shipped

pytestmark = pytest.mark.django_db

LESSON = "/courses/transformers/mlp-fact-store/"


@pytest.fixture
def shipped():
    load_shipped()


def get(client, path, **headers):
    return client.get(path, secure=True, headers=headers)


def test_the_mlp_lesson_holds_all_six_labs_each_with_ids_of_its_own(client, shipped):
    html = get(client, LESSON).content.decode()

    titles = re.findall(r'class="lab__embedded-title" id="(e\d+-)lab-title">Lab: ([^<]+)<', html)
    assert [title for _, title in titles] == [
        "The dot product as a question",
        "A toy MLP that stores facts",
        "ReLU as an AND gate, and GELU",
        "The parameter counter",
        "The residual stream, with switches",
        "Near-orthogonal directions",
    ]
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    assert [name for name, count in ids.items() if count > 1] == []
    for prefix, _ in titles:
        assert f'hx-headers=\'{{"X-Lab-Ids": "{prefix}"}}\'' in html
        assert f'hx-target="#{prefix}lab-result"' in html
    assert 'action="/labs/toy-mlp/"' in html
    assert 'hx-push-url="false"' in html
    # The parameter counter starts from the lecture's GPT-3 tally, as its line says.
    total = re.search(r'id="e\d+-lab-total">([\d,]+)<', html).group(1)
    assert total == "175,181,291,520"
    assert 'href="/labs/parameters/?preset=gpt3"' in html


def test_a_placed_lab_shows_the_engines_numbers(client, shipped):
    html = get(client, LESSON).content.decode()

    verdict = re.search(r'id="(e\d+-)lab-step">Step 1 of 5', html).group(1)
    first = re.search(rf'id="{verdict}lab-verdict">([^<]+)<', html).group(1)
    assert first == "Michael Jordan: the vector holds Michael 0.9 and Jordan 1."
    stream = labs.residual_stream(off=[])
    held = " and ".join(f"{d} 1" for d in stream["directions"]).replace(" and ", ", ", 3)
    assert f'lab-verdict">It ends holding {held}.<' in html
    assert "Open this lab on its own page" in html


def test_a_lab_moved_in_a_lesson_gets_its_result_under_its_prefix(client, shipped):
    path = "/labs/toy-mlp/?token=jordan&broken=n1&step=5"
    fragment = get(client, path, HX_Request="true", X_Lab_Ids="e2-").content.decode()

    assert "<html" not in fragment
    assert 'id="e2-lab-verdict">Out comes basketball 1 and Bulls 1.<' in fragment
    assert 'id="e2-stream"' in fragment
    assert 'href="/labs/toy-mlp/?token=jordan&amp;broken=n1&amp;step=4"' in fragment


@pytest.mark.parametrize("asked", ['"><script>alert(1)</script>', "e1", "lab-", "e99999-", ""])
def test_a_prefix_that_is_not_an_embeds_is_ignored(client, asked):
    fragment = get(
        client, "/labs/toy-mlp/?token=jordan&broken=&step=1", HX_Request="true", X_Lab_Ids=asked
    ).content.decode()

    assert 'id="lab-verdict"' in fragment
    assert "<script>alert" not in fragment


def test_a_prefix_without_htmx_changes_nothing(client):
    page = get(client, "/labs/toy-mlp/", X_Lab_Ids="e1-").content.decode()

    assert 'id="lab-verdict"' in page
    assert "e1-" not in page


@pytest.mark.parametrize(
    ("lesson", "name"),
    [
        ("block-anatomy", "pre-norm-block"),
        ("attention", "token-columns"),
        ("mlp-fact-store", "widen-bend-narrow"),
    ],
)
def test_each_diagram_sits_in_its_lesson_with_its_text_version(client, shipped, lesson, name):
    html = get(client, f"/courses/transformers/{lesson}/").content.decode()
    drawn = diagrams.DIAGRAMS[name]

    found = re.search(r'<figure class="diagram-figure".*?</figure>', html, re.S).group(0)
    figure = unescape(found)
    assert f">{drawn.title}</figcaption>" in figure
    assert re.search(rf'<svg [^>]*role="img" aria-labelledby="e\d+-{name}-title"', figure)
    words = re.findall(r"<li>(.*?)</li>", figure.split('class="diagram-figure__words"')[1])
    assert words == list(drawn.words)
