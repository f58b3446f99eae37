"""The lessons' diagrams: each an SVG drawn here, with a text version that says the same, for
a lesson to place with `::: diagram <name>` (`course.web.embeds`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.safestring import SafeString

from config.svg import Svg


@dataclass(frozen=True)
class Diagram:
    name: str
    title: str
    draw: Callable[[str], SafeString]
    """The SVG, its ids starting with the given prefix."""
    words: tuple[str, ...]
    """The text version, one step or part to a line."""


def _arrow_marker(svg: Svg, marker: str) -> None:
    svg.write(
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" '
        'markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
        '<path d="M0 0L10 5L0 10z" '
        'class="diagram__head"/></marker></defs>'
    )


def _box(svg: Svg, x: float, y: float, w: float, h: float, label: str, cls: str) -> None:
    svg.mark("rect", {"class": f"diagram__box {cls}", "x": x, "y": y, "width": w, "height": h,
                      "rx": 6})  # fmt: skip
    svg.text(label, x=x + w / 2, y=y + h / 2 + 5, cls="diagram__label", anchor="middle")


def _line(svg: Svg, points: list[tuple[float, float]], marker: str, cls: str = "") -> None:
    svg.mark(
        "polyline",
        {
            "class": f"diagram__line {cls}".strip(),
            "points": " ".join(f"{x:g},{y:g}" for x, y in points),
            "marker-end": f"url(#{marker})",
        },
    )


def _plus(svg: Svg, x: float, y: float) -> None:
    svg.mark("circle", {"class": "diagram__add", "cx": x, "cy": y, "r": 13})
    svg.text("+", x=x, y=y + 6, cls="diagram__label diagram__label--add", anchor="middle")


def pre_norm_block(prefix: str) -> SafeString:
    chart_id, marker = f"{prefix}pre-norm-block", f"{prefix}pre-norm-block-arrow"
    svg = Svg(chart_id, "A pre-norm decoder block, top to bottom", 440, 560, "diagram")
    _arrow_marker(svg, marker)
    stream, left, width = 150, 240, 190
    branch = left + width / 2
    _box(svg, 10, 10, 420, 44, "token embedding + position embedding", "diagram__box--io")
    _line(svg, [(stream, 54), (stream, 194)], marker, "diagram__line--stream")
    # Attention's branch: off the stream, through a layer norm, added back.
    _line(svg, [(stream, 84), (branch, 84), (branch, 100)], marker)
    _box(svg, left, 102, width, 36, "layer norm", "diagram__box--norm")
    _line(svg, [(branch, 138), (branch, 150)], marker)
    _box(svg, left, 152, width, 40, "multi-head attention", "diagram__box--attention")
    _line(svg, [(branch, 192), (branch, 208), (stream + 15, 208)], marker)
    _plus(svg, stream, 208)
    _line(svg, [(stream, 221), (stream, 400)], marker, "diagram__line--stream")
    # The MLP's branch, the same way.
    _line(svg, [(stream, 250), (branch, 250), (branch, 266)], marker)
    _box(svg, left, 268, width, 36, "layer norm", "diagram__box--norm")
    _line(svg, [(branch, 304), (branch, 316)], marker)
    _box(svg, left, 318, width, 40, "MLP", "diagram__box--mlp")
    _line(svg, [(branch, 358), (branch, 414), (stream + 15, 414)], marker)
    _plus(svg, stream, 414)
    _line(svg, [(stream, 427), (stream, 470)], marker, "diagram__line--stream")
    _box(svg, 10, 472, 420, 44, "out: to the next block", "diagram__box--io")
    svg.text("residual stream", x=stream - 10, y=150, cls="diagram__note", anchor="end")
    svg.text("x + Attention(LN(x))", x=stream - 18, y=240, cls="diagram__note", anchor="end")
    svg.text("x + MLP(LN(x))", x=stream - 18, y=446, cls="diagram__note", anchor="end")
    svg.text("after the last block: a final layer norm, then the logits", x=220, y=545,
             cls="diagram__note", anchor="middle")  # fmt: skip
    return svg.done()


def token_columns(prefix: str) -> SafeString:
    chart_id, marker = f"{prefix}token-columns", f"{prefix}token-columns-arrow"
    tokens = ("The", "cat", "sat", "on")
    svg = Svg(chart_id, "Attention between the columns of four tokens", 440, 300, "diagram")
    _arrow_marker(svg, marker)
    left, gap, cell = 40, 100, 18
    for i, token in enumerate(tokens):
        x = left + i * gap
        svg.text(token, x=x + 20, y=24, cls="diagram__label", anchor="middle")
        for j in range(6):
            svg.mark("rect", {"class": "diagram__cell", "x": x + 11, "y": 40 + j * cell,
                              "width": cell, "height": cell - 3})  # fmt: skip
        svg.text(f"x{i + 1}", x=x + 20, y=166, cls="diagram__note", anchor="middle")
    last = left + 3 * gap + 20
    for i in range(3):
        x = left + i * gap + 20
        svg.mark(
            "path",
            {
                "class": "diagram__line",
                "d": f"M{x:g} 176 C{x:g} {230 - i * 12:g} {last - 30:g} 236 {last - 4:g} 182",
                "marker-end": f"url(#{marker})",
            },
        )
    svg.text("“on” reads from itself and every token before it", x=220, y=262,
             cls="diagram__note", anchor="middle")  # fmt: skip
    svg.text("never from a token after it", x=220, y=284, cls="diagram__note", anchor="middle")
    return svg.done()


def widen_bend_narrow(prefix: str) -> SafeString:
    chart_id = f"{prefix}widen-bend-narrow"
    svg = Svg(chart_id, "The MLP widens the vector, bends it, narrows it", 440, 330, "diagram")
    mid = 158

    def column(x: float, n: int, label: str, size: str) -> None:
        top = mid - n * 6
        for k in range(n):
            svg.mark("circle", {"class": "diagram__unit", "cx": x, "cy": top + k * 12 + 6,
                                "r": 4.5})  # fmt: skip
        svg.text(label, x=x, y=286, cls="diagram__label", anchor="middle")
        svg.text(size, x=x, y=306, cls="diagram__note", anchor="middle")

    column(50, 4, "x", "12,288")
    column(220, 16, "4× wider", "49,152")
    column(390, 4, "out", "12,288")
    svg.mark("path", {"class": "diagram__fan", "d": f"M62 {mid - 26} L208 {mid - 98} "
                      f"L208 {mid + 98} L62 {mid + 26} Z"})  # fmt: skip
    svg.mark("path", {"class": "diagram__fan", "d": f"M232 {mid - 98} L378 {mid - 26} "
                      f"L378 {mid + 26} L232 {mid + 98} Z"})  # fmt: skip
    svg.text("W↑ widens", x=135, y=mid + 5, cls="diagram__label", anchor="middle")
    svg.text("W↓ narrows", x=305, y=mid + 5, cls="diagram__label", anchor="middle")
    # The bend: ReLU drawn small above the wide layer.
    svg.mark("polyline", {"class": "diagram__bend", "points": "196,26 220,26 244,8"})
    svg.text("ReLU / GELU bends each", x=220, y=48, cls="diagram__note", anchor="middle")
    svg.text("sizes: GPT-3", x=430, y=326, cls="diagram__note", anchor="end")
    return svg.done()


DIAGRAMS = {
    diagram.name: diagram
    for diagram in (
        Diagram(
            "pre-norm-block",
            "One decoder block, pre-norm",
            pre_norm_block,
            (
                "In: each token's embedding plus its position embedding; this vector is the "
                "residual stream.",
                "A copy goes through a layer norm, then multi-head attention; what attention "
                "gives is added to the stream: x + Attention(LN(x)).",
                "A copy of the result goes through a second layer norm, then the MLP; its "
                "output is added too: x + MLP(LN(x)).",
                "Out: the stream goes on to the next block. After the last block, a final "
                "layer norm and then the logits.",
            ),
        ),
        Diagram(
            "token-columns",
            "Attention works between the tokens' columns",
            token_columns,
            (
                "Each token, “The”, “cat”, “sat”, “on”, is a column: its own vector, x1 to x4.",
                "Attention lets a column take in information from the columns before it and "
                "from itself: “on” can read from all four.",
                "It never reads from a column after it, so no token sees the future.",
                "The MLP then works on each column alone, with the same weights for every one.",
            ),
        ),
        Diagram(
            "widen-bend-narrow",
            "The MLP: widen, bend, narrow",
            widen_bend_narrow,
            (
                "The token's vector x comes in with d_model numbers (12,288 in GPT-3).",
                "W↑ widens it to four times as many, 49,152 neurons, each a dot product plus a "
                "bias.",
                "ReLU (GELU in GPT-2 and GPT-3) bends each of them: a negative value becomes 0, "
                "or close to it.",
                "W↓ narrows them back to d_model numbers, the width the residual stream needs "
                "to add them.",
            ),
        ),
    )
}
