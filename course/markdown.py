"""Lesson Markdown to HTML that is safe to put straight into a page.

Formulas written `$...$` (inline) or `$$...$$` (display) are typeset here as MathML, once, when
the course is loaded, so a page needs no script to show them. Each `<math>` keeps its LaTeX in
an `<annotation>`: browsers show only the first child of `<semantics>` and screen readers read
the MathML itself (Chromium ignores `alttext`), while the source stays there to copy.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from xml.etree.ElementTree import Element, SubElement, tostring

import nh3
from latex2mathml.converter import convert_to_element
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

TEX = "application/x-tex"
_MATH_TOKENS = {"math_inline", "math_inline_double", "math_block"}
_CHARACTER = re.compile(r"&#x([0-9a-fA-F]+);")
_COMMAND = re.compile(r"\\[A-Za-z]+")


class FormulaError(ValueError):
    """A formula latex2mathml cannot typeset."""


def _decoded(text: str | None) -> str | None:
    # latex2mathml writes symbols as character references and unescapes its whole output,
    # which would let a `<` typed in `\text{}` through as markup; decode them here instead
    # and let ElementTree escape everything on the way out.
    return None if text is None else _CHARACTER.sub(lambda m: chr(int(m[1], 16)), text)


def mathml(latex: str, *, display: bool) -> str:
    """`latex` as one `<math>` element; raises FormulaError when it cannot be typeset."""
    try:
        math = convert_to_element(latex, display="block" if display else "inline")
    except Exception as exc:  # the converter raises many kinds of error on malformed input
        raise FormulaError(_reason(exc)) from exc
    for element in math.iter():
        _refuse_unknown(element.text)
        element.text = _decoded(element.text)
        element.tail = _decoded(element.tail)
    semantics = Element("semantics")
    semantics.extend(list(math))  # one <mrow>: what is shown
    math[:] = [semantics]
    SubElement(semantics, "annotation", encoding=TEX).text = latex
    return tostring(math, encoding="unicode")


def _refuse_unknown(text: str | None) -> None:
    """The converter passes what it does not know through as text instead of failing."""
    if text == "&":  # `\&` comes out as a character reference
        raise FormulaError("'&' outside a matrix or an alignment it knows")
    if text and _COMMAND.fullmatch(text):
        raise FormulaError(f"unknown command {text}")


def _reason(exc: Exception) -> str:
    if str(exc):
        return str(exc)
    if type(exc).__name__ == "NoAvailableTokensError":
        return "it ends before a command has all its arguments"
    # latex2mathml's errors carry no message; their names say it (NumeratorNotFoundError).
    words = re.findall(r"[A-Z][a-z]*", type(exc).__name__.removesuffix("Error"))
    return " ".join(words).lower() or type(exc).__name__


def _formula(latex: str, options: dict[str, Any]) -> str:
    try:
        return mathml(latex, display=options["display_mode"])
    except FormulaError:
        return f"<code>{escapeHtml(latex)}</code>"  # shown as written; the loader reports it


# CommonMark plus tables and strikethrough; raw HTML in the source is not passed through.
# Dollar math needs no space inside its dollars and no digit outside them, so "$5 and $6"
# stays money; `$$...$$` is display math on its own lines or inside a paragraph.
_md = (
    MarkdownIt("commonmark", {"html": False, "typographer": False})
    .enable(["table", "strikethrough"])
    .use(
        dollarmath_plugin,
        allow_space=False,
        allow_digits=False,
        allow_labels=False,
        double_inline=True,
        renderer=_formula,
    )
)

# A lab or a diagram placed in a lesson: a line of its own, `::: lab toy-mlp token=jordan step=2`
# (the name, then the lab's starting state as name=value pairs) or `::: diagram pre-norm-block`.
# It becomes an empty placeholder that the lesson page fills (`course.web.embeds`).
_EMBED = re.compile(r"::: *(\S+) *(\S*) *(.*?) *")


@dataclass(frozen=True)
class Embed:
    kind: str
    name: str
    state: str
    """The pairs as written, `token=jordan step=2`."""
    line: int
    """Its line in the Markdown, from 1."""


def _embed_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if state.sCount[start] - state.blkIndent >= 4:  # an indented line is code
        return False
    line = state.src[state.bMarks[start] + state.tShift[start] : state.eMarks[start]]
    found = _EMBED.fullmatch(line)
    if not found:
        return False
    if silent:
        return True
    token = state.push("embed", "div", 0)
    token.meta = {"kind": found[1], "name": found[2], "state": found[3]}
    token.map = [start, start + 1]
    state.line = start + 1
    return True


def _render_embed(self: Any, tokens: list[Token], index: int, options: Any, env: Any) -> str:
    meta = tokens[index].meta
    return (
        f'<div data-embed="{escapeHtml(meta["kind"])}" data-name="{escapeHtml(meta["name"])}"'
        f' data-state="{escapeHtml(meta["state"])}"></div>\n'
    )


_md.block.ruler.before(
    "paragraph", "embed", _embed_rule, {"alt": ["paragraph", "reference", "blockquote", "list"]}
)
_md.add_render_rule("embed", _render_embed)


def _display_formula(self: Any, tokens: list[Token], index: int, options: Any, env: Any) -> str:
    # Without the plugin's wrapping <div>: the only <div> the sanitizer lets through is an
    # embed's placeholder.
    return _formula(str(tokens[index].content).strip(), {"display_mode": True}) + "\n"


_md.add_render_rule("math_block", _display_formula)
_md.add_render_rule("math_inline_double", _display_formula)

_MATHML_TAGS = {
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace",
    "msup", "msub", "msubsup", "mfrac", "msqrt", "mroot", "mtable", "mtr", "mtd", "munder",
    "mover", "munderover", "mstyle", "mpadded", "mphantom", "menclose",
}  # fmt: skip
_MATHML_ATTRIBUTES = {
    "math": {"xmlns", "display"},
    "annotation": {"encoding"},
    "mi": {"mathvariant"},
    "mn": {"mathvariant"},
    "mo": {
        "mathvariant", "stretchy", "fence", "separator", "form", "lspace", "rspace", "minsize",
        "maxsize", "largeop", "movablelimits", "accent",
    },
    "mtext": {"mathvariant"},
    "mspace": {"width", "height", "depth", "linebreak"},
    "mfrac": {"linethickness"},
    "mtable": {
        "columnalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "displaystyle",
    },
    "mtd": {"columnalign"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant", "mathsize"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "menclose": {"notation"},
}  # fmt: skip

# The span and div that wrap each formula are not allowed, so only the <math> is left.
_TAGS = {
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "hr", "li", "ol", "p",
    "pre", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul", "img",
    "div",
} | _MATHML_TAGS  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "td": {"style"},
    "th": {"style"},
    "div": {"data-embed", "data-name", "data-state"},  # only the embed rule writes a <div>
} | _MATHML_ATTRIBUTES


@lru_cache(maxsize=4096)
def render(markdown: str) -> str:
    """`markdown` as sanitized HTML. The same text always renders the same, so the most
    recent few thousand are kept: a content load renders each of the bank's texts, and a
    generated prompt is rendered again on each of its requests."""
    html = _md.render(markdown)
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"https", "mailto"},
        link_rel="noopener noreferrer",
        filter_style_properties={"text-align"},
    )


def formulas(markdown: str) -> Iterator[tuple[str, bool]]:
    """Each formula in `markdown`: its LaTeX, and whether it is display math."""
    stack: list[Token] = list(reversed(_md.parse(markdown)))
    while stack:
        token = stack.pop()
        if token.type in _MATH_TOKENS:
            yield token.content.strip(), token.type != "math_inline"
        stack.extend(reversed(token.children or []))


def formula_problems(markdown: str) -> list[str]:
    """Why each formula in `markdown` that cannot be typeset fails, naming it."""
    problems = []
    for latex, display in formulas(markdown):
        try:
            mathml(latex, display=display)
        except FormulaError as exc:
            delimiter = "$$" if display else "$"
            problems.append(f"cannot typeset {delimiter}{latex}{delimiter}: {exc}")
    return problems


def embeds(markdown: str) -> list[Embed]:
    """Each lab or diagram `markdown` places, in order."""
    return [
        Embed(
            kind=token.meta["kind"],
            name=token.meta["name"],
            state=token.meta["state"],
            line=(token.map or [0])[0] + 1,
        )
        for token in _md.parse(markdown)
        if token.type == "embed"
    ]
