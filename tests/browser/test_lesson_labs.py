"""Labs and diagrams inside a lesson, in a browser: a placed lab moves with the keyboard and
answers in place, the lesson's address staying put; without JavaScript it opens the lab's own
page at the state chosen. A diagram sits beside its text version, on a phone too."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, SCREENSHOTS, check_page

pytestmark = pytest.mark.django_db(transaction=True)

LESSON = "/courses/transformers/mlp-fact-store/"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_toy_mlp_in_the_lesson_steps_in_place(open_browser, course, javascript):
    browse = open_browser(javascript=javascript)
    page = browse.page

    assert browse.go(LESSON).status == 200
    lab = page.get_by_role("region", name="Lab: A toy MLP that stores facts")
    expect(lab).to_be_visible()
    step = lab.locator("[id$='lab-step']")
    assert step.inner_text() == "Step 1 of 5: The input"
    check_page(browse)

    lab.get_by_role("slider", name=re.compile("Step")).focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    if javascript:
        expect(step).to_have_text("Step 5 of 5: The addition")
        assert page.url.endswith(LESSON)  # the lab answered in place
        verdict = lab.locator("[id$='lab-verdict']")
        assert verdict.inner_text() == "Out comes basketball 0.9 and Bulls 0.9."
        # The other labs on the page are as they were.
        dot = page.get_by_role("region", name="Lab: The dot product as a question")
        assert dot.locator("[id$='lab-verdict']").inner_text().startswith("Yes")
        check_page(browse)
        # The lesson is long: the picture is of the lab alone, in a viewport as tall as it.
        height = int(lab.evaluate("element => element.offsetHeight"))
        page.set_viewport_size({"width": 1280, "height": height + 40})
        lab.evaluate("element => element.scrollIntoView()")
        box = lab.bounding_box()
        page.screenshot(path=str(SCREENSHOTS / "lesson-lab-toy-mlp.png"), clip=box)
    else:
        lab.get_by_role("button", name="Show").click()
        page.wait_for_url(re.compile(r"/labs/toy-mlp/\?.*step=5"))
        assert page.locator("#lab-step").inner_text() == "Step 5 of 5: The addition"
        check_page(browse)


def test_a_diagram_sits_beside_its_words_and_stacks_on_a_phone(open_browser, course):
    browse = open_browser()
    page = browse.page

    browse.go("/courses/transformers/block-anatomy/")
    figure = page.get_by_role("figure", name="One decoder block, pre-norm")
    expect(figure).to_be_visible()
    assert figure.get_by_role("img", name=re.compile("pre-norm decoder block")).count() == 1
    assert figure.get_by_role("listitem").count() == 4
    picture = figure.locator(".diagram-figure__picture").bounding_box()
    words = figure.locator(".diagram-figure__words").bounding_box()
    assert words["x"] > picture["x"] + picture["width"] - 1  # beside it
    check_page(browse)
    figure.screenshot(path=str(SCREENSHOTS / "diagram-pre-norm-block.png"))
    page.set_viewport_size(PHONE)
    picture = figure.locator(".diagram-figure__picture").bounding_box()
    words = figure.locator(".diagram-figure__words").bounding_box()
    assert words["y"] >= picture["y"] + picture["height"] - 1  # under it
    figure.screenshot(path=str(SCREENSHOTS / "diagram-pre-norm-block-phone.png"))


@pytest.mark.parametrize(
    ("lesson", "title", "name"),
    [
        ("attention", "Attention works between the tokens' columns", "token-columns"),
        ("mlp-fact-store", "The MLP: widen, bend, narrow", "widen-bend-narrow"),
    ],
)
def test_the_other_diagrams_draw_with_their_words(open_browser, course, lesson, title, name):
    browse = open_browser()
    page = browse.page

    browse.go(f"/courses/transformers/{lesson}/")
    figure = page.get_by_role("figure", name=title)
    expect(figure).to_be_visible()
    assert figure.locator("svg[role=img]").count() == 1
    assert figure.get_by_role("listitem").count() == 4
    figure.screenshot(path=str(SCREENSHOTS / f"diagram-{name}.png"))
