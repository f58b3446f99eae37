"""Lesson Markdown to HTML that is safe to put straight into a page."""

import nh3
from markdown_it import MarkdownIt

# CommonMark plus tables and strikethrough; raw HTML in the source is not passed through.
_md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)

_TAGS = {
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "hr", "li", "ol", "p",
    "pre", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul", "img",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "td": {"style"},
    "th": {"style"},
}


def render(markdown: str) -> str:
    html = _md.render(markdown)
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"https", "mailto"},
        link_rel="noopener noreferrer",
        filter_style_properties={"text-align"},
    )
