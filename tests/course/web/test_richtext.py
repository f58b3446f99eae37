"""Glossary terms linked in a section's HTML, and wide content wrapped in focusable regions."""

from __future__ import annotations

from course.markdown import render
from course.web.richtext import glossary, prepare

TERMS = glossary(
    [
        ("mlp", ["MLP", "multilayer perceptron"]),
        ("attention", ["Attention"]),
        ("multi-head", ["Multi-head attention"]),
        ("relu", ["ReLU", "rectified linear unit"]),
        ("bias", ["Bias"]),
    ]
)


def linked(html: str) -> list[str]:
    return prepare(html, TERMS).terms


def test_the_first_occurrence_of_a_term_becomes_a_button_for_its_card():
    result = prepare("<p>The MLP reads. The MLP writes.</p>", TERMS)

    assert result.html == (
        '<p>The <button type="button" class="link-button term" popovertarget="term-mlp"'
        ' data-glossary="#glossary-mlp">MLP</button> reads. The MLP writes.</p>'
    )
    assert result.terms == ["mlp"]


def test_an_alias_a_plural_and_any_case_of_a_plain_word_link_to_the_term():
    assert linked("<p>A multilayer perceptron.</p>") == ["mlp"]
    assert linked("<p>Two biases.</p>") == ["bias"]
    assert linked("<p>ATTENTION please.</p>") == ["attention"]
    assert linked("<p>The rectified\nlinear unit.</p>") == ["relu"]


def test_a_name_with_inner_capitals_matches_only_as_written():
    assert linked("<p>relu and mlp in lower case.</p>") == []
    assert linked("<p>ReLUs.</p>") == ["relu"]


def test_the_longest_name_wins():
    result = prepare("<p>Multi-head attention splits attention.</p>", TERMS)

    assert result.terms == ["multi-head", "attention"]
    assert ">Multi-head attention</button>" in result.html


def test_parts_of_words_are_not_terms():
    assert linked("<p>Biased, unbiased, prebias, bias-free, MLPs-x.</p>") == []


def test_terms_inside_links_code_formulas_and_headings_stay_as_they_are():
    html = (
        '<h3>The MLP</h3><p><a href="https://example.com">MLP</a> <code>MLP</code></p>'
        "<pre><code>MLP\n</code></pre>"
        '<p><math display="inline"><semantics><mi>MLP</mi></semantics></math></p>'
    )

    assert linked(html) == []


def test_a_term_is_linked_after_a_shielded_element_closes():
    assert linked("<p><code>MLP</code> then the MLP.</p>") == ["mlp"]
    assert linked('<p><a href="https://example.com">a</a> the MLP</p>') == ["mlp"]


def test_text_in_attributes_is_never_touched():
    html = (
        '<p><a href="https://example.com" title="MLP > bias">x</a>'
        ' <img src="https://example.com/a.png" alt="MLP"></p>'
    )

    result = prepare(html, TERMS)

    assert result.terms == []
    assert result.html == html


def test_display_formulas_scroll_in_a_focusable_region_and_inline_ones_do_not():
    html = render("Inline $x^2$ and\n\n$$\ny = \\mathrm{softmax}(x)\n$$\n")

    result = prepare(html, TERMS).html

    wrapper = '<span class="formula" role="region" aria-label="Formula" tabindex="0">'
    assert result.count(wrapper) == 1
    assert wrapper + "<math" in result
    assert result.index('class="formula"') < result.index('display="block"')
    assert result.count("</math></span>") == 1


def test_tables_and_code_blocks_can_be_scrolled_from_the_keyboard():
    html = render("| a | b |\n| - | - |\n| 1 | 2 |\n\n```\ncode\n```\n")

    result = prepare(html, TERMS).html

    assert '<div class="table-wrap" role="region" aria-label="Table" tabindex="0"><table>' in result
    assert "</table></div>" in result
    assert '<pre tabindex="0">' in result


def test_no_terms_leaves_the_text_alone():
    assert prepare("<p>The MLP.</p>", glossary([])).html == "<p>The MLP.</p>"


def test_escaped_text_is_matched_as_the_reader_sees_it():
    terms = glossary([("qk", ["Q&K"])])

    result = prepare("<p>Q&amp;K and &lt;MLP&gt;</p>", terms)

    assert result.terms == ["qk"]
    assert ">Q&amp;K</button>" in result.html


def test_single_letter_aliases_are_not_linked():
    terms = glossary([("qkv", ["Query, key and value", "Q", "K", "V", "values"])])

    assert prepare("<p>V is a matrix of values.</p>", terms).terms == ["qkv"]
    assert ">values</button>" in prepare("<p>V is a matrix of values.</p>", terms).html
