"""SVG drawn on the server as text: an `<svg role="img">` with a `<title>` that sums it up, and
marks that each say their number in words in a `<title>` of their own.

Every attribute value and text is escaped on the way in, so the result always parses; no inline
styles (the Content-Security-Policy forbids them), only CSS classes the stylesheet colours.
Text is several times faster to build than an element tree, and a chart can hold hundreds of
marks.
"""

from __future__ import annotations

from html import escape

from django.utils.safestring import SafeString, mark_safe

SVG_NS = "http://www.w3.org/2000/svg"


class Svg:
    """An `<svg role="img">` written as text: its `<title>`, then marks, each attribute value
    and text escaped (numbers written without a trailing `.0`)."""

    def __init__(self, chart_id: str, summary: str, width: float, height: float, cls: str):
        self._parts = [
            open_tag(
                "svg",
                {
                    "xmlns": SVG_NS,
                    "class": cls,
                    "role": "img",
                    "aria-labelledby": f"{chart_id}-title",
                    "viewBox": f"0 0 {number(width)} {number(height)}",
                    "width": width,
                    "height": height,
                    "id": chart_id,
                },
            ),
            f'<title id="{escape(chart_id)}-title">{escape(summary, quote=False)}</title>',
        ]

    def mark(self, tag: str, attributes: dict[str, str | float], *, title: str = "") -> None:
        """An element, with a `<title>` inside that says its number in words."""
        if title:
            self._parts.append(
                f"{open_tag(tag, attributes)}<title>{escape(title, quote=False)}</title></{tag}>"
            )
        else:
            self._parts.append(open_tag(tag, attributes, empty=True))

    def write(self, markup: str) -> None:
        """Markup the caller has escaped itself."""
        self._parts.append(markup)

    def text(self, text: str, *, x: float, y: float, cls: str, anchor: str = "") -> None:
        attributes: dict[str, str | float] = {"class": cls, "x": x, "y": y, "aria-hidden": "true"}
        if anchor:
            attributes["text-anchor"] = anchor
        self._parts.append(f"{open_tag('text', attributes)}{escape(text, quote=False)}</text>")

    def done(self) -> SafeString:
        return mark_safe("".join(self._parts) + "</svg>")  # every value escaped on the way in


def open_tag(name: str, attributes: dict[str, str | float], *, empty: bool = False) -> str:
    """An opening tag (or an empty element), each attribute value escaped."""
    written = "".join(
        f' {key}="{escape(value) if isinstance(value, str) else number(value)}"'
        for key, value in attributes.items()
    )
    return f"<{name}{written}{' />' if empty else '>'}"


def number(value: float) -> str:
    """A coordinate, without a trailing `.0`."""
    return f"{value:.1f}".removesuffix(".0")
