"""The labs in a browser, with JavaScript on and off: the parameter counter moved with the
keyboard follows its slider, a preset gives the lecture's figure, and every page passes the
checks every page must pass."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, check_page, screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def total(page):
    return int(page.locator("#lab-total").inner_text().replace(",", ""))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_parameter_counter_follows_its_slider_and_its_presets(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    page = browse.page

    assert browse.go("/labs/").status == 200
    check_page(browse)
    page.get_by_role("link", name=re.compile("The parameter counter")).click()
    page.wait_for_url("**/labs/parameters/")
    assert page.get_by_role("heading", level=1).inner_text() == "The parameter counter"
    assert total(page) == 124_439_808  # GPT-2 small, tied embeddings
    check_page(browse)

    slider = page.get_by_role("slider", name=re.compile("Width"))
    slider.focus()
    for _ in range(2):
        page.keyboard.press("ArrowRight")
    if javascript:
        # The live value follows at once; the count once the slider rests, without a reload.
        assert page.locator("#d_model-value").inner_text() == "896"
        expect(page.locator("#lab-total")).not_to_have_text("124,439,808")
        assert page.evaluate("document.activeElement.name") == "d_model"
        page.wait_for_url(re.compile(r"d_model=896"))
    else:
        page.get_by_role("button", name="Count").click()
        page.wait_for_url(re.compile(r"d_model=896"))
    # 896 wide, everything else GPT-2 small's: the count the formulas give.
    d = 896
    block = 4 * d * d + 4 * d + 8 * d * d + 5 * d + 4 * d
    assert total(page) == 50_257 * d + 1_024 * d + 12 * block + 2 * d
    check_page(browse)

    page.get_by_role("link", name="GPT-3, the lecture's tally").click()
    page.wait_for_url(re.compile(r"preset=gpt3"))
    assert total(page) == 175_181_291_520
    assert page.locator("#lab-mlp-share").inner_text() == "66.2%"
    assert "weight matrices only" in page.locator(".lab__presets").inner_text()
    assert "untied" in page.locator(".lab__convention").inner_text()
    check_page(browse)
    if javascript:
        page.go_back()
        page.wait_for_url(re.compile(r"d_model=896"))
        assert total(page) == 50_257 * d + 1_024 * d + 12 * block + 2 * d
        page.set_viewport_size(PHONE)
        screenshot(page, "lab-parameters-phone")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.get_by_role("link", name="GPT-3, the lecture's tally").click()
        page.wait_for_url(re.compile(r"preset=gpt3"))
        screenshot(page, "lab-parameters")


def test_a_bad_value_sent_without_javascript_is_named(open_browser):
    browse = open_browser(javascript=False)
    page = browse.page

    response = browse.go("/labs/parameters/?d_model=100&layers=0&ratio=4&vocab=9&context=0")

    assert response.status == 400
    summary = page.get_by_role("alert")
    assert "There is a problem" in summary.inner_text()
    assert summary.get_by_role("link").count() == 2
    check_page(browse)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_angles_squeeze_towards_90_degrees_as_the_dimensions_grow(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    page = browse.page

    browse.go("/labs/")
    page.get_by_role("link", name=re.compile("Near-orthogonal directions")).click()
    page.wait_for_url(re.compile(r"near-orthogonal/\?dims=100&vectors=300&seed=\d+"))
    assert page.locator("#lab-dims").inner_text() == "100"
    narrow = page.locator("#lab-share-1").inner_text()
    check_page(browse)

    # The dimensions are a group of radio buttons: the arrow keys move along them.
    page.get_by_role("radio", name="100", exact=True).focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    assert page.get_by_role("radio", name="12,288 (GPT-3)").is_checked()
    if javascript:
        expect(page.locator("#lab-dims")).to_have_text("12,288")
        assert page.evaluate("document.activeElement.value") == "12288"
    else:
        page.get_by_role("button", name="Draw", exact=True).click()
    page.wait_for_url(re.compile(r"dims=12288"))
    assert page.locator("#lab-dims").inner_text() == "12,288"
    assert "122 at 12,288 dimensions" in page.locator("#id_vectors_helptext").inner_text()
    # The slider ends where the budget does at these dimensions.
    vectors = page.get_by_role("slider", name=re.compile("Vectors"))
    expect(vectors).to_have_attribute("max", "122")
    # and the value shown beside it is the one drawn, not the 300 asked for.
    expect(page.locator("#vectors-value")).to_have_text("122")
    # 300 vectors are more than the budget allows at GPT-3's width: the page says so.
    assert page.locator("#lab-vectors").inner_text() == "122"
    assert "the most that fit" in page.locator("#lab-result").inner_text()
    wide = float(page.locator("#lab-share-1").inner_text().rstrip("%"))
    assert wide > 85 > float(narrow.rstrip("%"))
    assert page.locator("#angles rect.angle-bar").count() >= 2
    check_page(browse)
    if javascript:
        seed = re.search(r"seed=(\d+)", page.url).group(1)
        page.get_by_role("button", name="New random vectors").click()
        page.wait_for_url(lambda url: "seed=" in url and f"seed={seed}" not in url)
        screenshot(page, "lab-near-orthogonal")
        page.set_viewport_size(PHONE)
        screenshot(page, "lab-near-orthogonal-phone")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_bias_slider_turns_an_or_gate_into_an_and_gate(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    page = browse.page

    browse.go("/labs/")
    page.get_by_role("link", name=re.compile("ReLU as an AND gate")).click()
    page.wait_for_url("**/labs/and-gate/")
    assert page.locator("#lab-verdict").inner_text().startswith("An OR gate")
    check_page(browse)

    slider = page.get_by_role("slider", name=re.compile("Bias"))
    slider.focus()
    for _ in range(30):  # 0 down to -1.5, 0.05 a step
        page.keyboard.press("ArrowLeft")
    if javascript:
        assert page.locator("#bias-value").inner_text() == "−1.5"
        expect(page.locator("#lab-verdict")).to_have_text(re.compile("^An AND gate"))
        assert page.evaluate("document.activeElement.name") == "bias"
    else:
        page.get_by_role("button", name="Compute").click()
    page.wait_for_url(re.compile(r"bias=-1\.5"))
    assert page.locator("#lab-verdict").inner_text().startswith("An AND gate")
    fires = page.locator(".gate-table tbody td:last-child").all_inner_texts()
    assert fires == ["no", "no", "no", "yes"]
    check_page(browse)

    page.get_by_role("radio", name="GELU").check()
    if not javascript:
        page.get_by_role("button", name="Compute").click()
    page.wait_for_url(re.compile(r"activation=gelu"))
    expect(page.locator("#gelu-min")).to_have_text("−0.17")
    assert page.locator("#activations polyline.curve--gelu").count() == 1
    check_page(browse)
    if javascript:
        screenshot(page, "lab-and-gate")
        page.set_viewport_size(PHONE)
        screenshot(page, "lab-and-gate-phone")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_dot_product_lab_says_who_answers_the_question(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    page = browse.page

    browse.go("/labs/")
    page.get_by_role("link", name=re.compile("The dot product as a question")).click()
    page.wait_for_url("**/labs/dot-product/")
    assert page.locator("#lab-verdict").inner_text().startswith("Yes")
    check_page(browse)

    page.get_by_role("radio", name="Michael Jordan", exact=True).focus()
    page.keyboard.press("ArrowRight")  # to Michael Phelps
    if not javascript:
        page.get_by_role("button", name="Ask").click()
    page.wait_for_url(re.compile(r"person=michael-phelps"))
    expect(page.locator("#lab-verdict")).to_have_text(re.compile("^No"))
    assert page.locator("#lab-z").inner_text() == "0"
    check_page(browse)

    page.get_by_role("slider", name=re.compile("Bias")).focus()
    for _ in range(10):  # -1 up to 0
        page.keyboard.press("ArrowRight")
    if not javascript:
        page.get_by_role("button", name="Ask").click()
    page.wait_for_url(re.compile(r"bias=0"))
    expect(page.locator("#lab-verdict")).to_have_text(re.compile("^Yes"))
    check_page(browse)
    if javascript:
        screenshot(page, "lab-dot-product")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_toy_mlp_steps_to_its_fact_and_a_broken_bias_gives_it_to_phelps(
    open_browser, javascript
):
    browse = open_browser(javascript=javascript)
    page = browse.page
    verdict = page.locator("#lab-verdict")

    browse.go("/labs/")
    page.get_by_role("link", name=re.compile("A toy MLP that stores facts")).click()
    page.wait_for_url("**/labs/toy-mlp/")
    assert page.locator("#lab-step").inner_text() == "Step 1 of 5: The input"
    assert verdict.inner_text() == "Michael Jordan: the vector holds Michael 0.9 and Jordan 1."
    check_page(browse)

    # The next step is a link too, so stepping needs neither the slider nor JavaScript.
    page.get_by_role("link", name="Step 2 →").click()
    page.wait_for_url(re.compile(r"step=2"))
    assert verdict.inner_text() == "z: N1 0.9, N2 −0.1, N3 0."
    check_page(browse)

    page.get_by_role("slider", name=re.compile("Step")).focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    if javascript:
        assert page.locator("#step-value").inner_text() == "5"
        expect(page.locator("#lab-step")).to_have_text("Step 5 of 5: The addition")
        assert page.evaluate("document.activeElement.name") == "step"
    else:
        page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"step=5"))
    assert verdict.inner_text() == "Out comes basketball 0.9 and Bulls 0.9."
    check_page(browse)

    page.get_by_role("radio", name="Michael Jordan", exact=True).focus()
    page.keyboard.press("ArrowRight")  # to Michael Phelps
    if not javascript:
        page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"token=michael-phelps"))
    expect(verdict).to_have_text("Out comes swimming 0.8.")
    check_page(browse)

    page.get_by_role("radio", name="N1 (Michael + Jordan)").check()
    if not javascript:
        page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"broken=n1"))
    expect(verdict).to_have_text("Out comes basketball 1, Bulls 1 and swimming 0.8.")
    assert page.locator("#stream rect.stream-added").count() == 3
    assert "N1 no longer needs both" in page.locator("#lab-result").inner_text()
    check_page(browse)
    if javascript:
        # Back and forward give the controls as they were left, beside their result.
        page.go_back()
        page.wait_for_url(lambda url: "broken=n1" not in url)
        expect(verdict).to_have_text("Out comes swimming 0.8.")
        expect(page.get_by_role("radio", name="Michael Phelps")).to_be_checked()
        expect(page.get_by_role("radio", name="None")).to_be_checked()
        expect(page.get_by_role("slider", name=re.compile("Step"))).to_have_value("5")
        page.go_forward()
        page.wait_for_url(re.compile(r"broken=n1"))
        expect(page.get_by_role("radio", name="N1 (Michael + Jordan)")).to_be_checked()
        screenshot(page, "lab-toy-mlp")
        page.set_viewport_size(PHONE)
        screenshot(page, "lab-toy-mlp-phone")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_switching_off_block_1s_attention_breaks_the_whole_chain(open_browser, javascript):
    browse = open_browser(javascript=javascript)
    page = browse.page
    verdict = page.locator("#lab-verdict")

    browse.go("/labs/")
    page.get_by_role("link", name=re.compile("The residual stream, with switches")).click()
    page.wait_for_url("**/labs/residual-stream/")
    assert verdict.inner_text() == (
        "It ends holding Michael 1, Jordan 1, basketball 1, Bulls 1 and NBA 1."
    )
    check_page(browse)

    page.get_by_role("checkbox", name="Block 1: attention").focus()
    page.keyboard.press("Space")
    if javascript:
        expect(verdict).to_have_text("It ends holding Jordan 1.")
        assert page.evaluate("document.activeElement.value") == "attention-1"
    else:
        page.get_by_role("button", name="Run the stream").click()
    page.wait_for_url(re.compile(r"switches=1"))
    assert verdict.inner_text() == "It ends holding Jordan 1."
    assert page.locator("#lab-best").inner_text() == "No word is favoured"
    assert page.locator("#stream-words tbody tr td:last-child").all_inner_texts() == ["33.3%"] * 3
    check_page(browse)

    page.get_by_role("checkbox", name="Block 1: attention").check()
    page.get_by_role("checkbox", name="Block 2: MLP").uncheck()
    if not javascript:
        page.get_by_role("button", name="Run the stream").click()
    expect(page.locator("#lab-missing")).to_have_text("Missing: Bulls.")
    page.wait_for_url(lambda url: "on=mlp-2" not in url and "on=attention-1" in url)
    check_page(browse)
    if javascript:
        screenshot(page, "lab-residual-stream")
        page.set_viewport_size(PHONE)
        screenshot(page, "lab-residual-stream-phone")
