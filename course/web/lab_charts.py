"""The labs' pictures, drawn on the server (`config.svg`): numbers in, SVG out, each beside a
table of the same numbers on its page."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.safestring import SafeString

from config.svg import Svg
from engine.formatting import format_number


def percent(share: float) -> str:
    """`56.9%`; a share that is not 0 never shows as 0.0%."""
    if 0 < share < 0.0005:
        return "under 0.1%"
    return f"{share * 100:.1f}%"


def shares(parts: Sequence[tuple[str, int]], *, total: int, chart_id: str) -> SafeString:
    """One bar split into each part's share of `total`, in order, each segment named with its
    count and share (the page's key and table say the same in text)."""
    width, height = 640, 36
    keyed = [(name, count) for name, count in parts if count > 0]
    biggest = max(keyed, key=lambda part: part[1])
    summary = (
        f"{format_number(total)} parameters: {biggest[0]} holds the most, "
        f"{percent(biggest[1] / total)}."
    )
    svg = Svg(chart_id, summary, width, height, "chart chart--shares")
    x = 0.0
    for index, (name, count) in enumerate(keyed):
        length = width * count / total
        svg.mark(
            "rect",
            {
                "class": f"share share--{index % 6}",
                "x": round(x, 1),
                "y": 0,
                "width": max(round(length, 1), 1),
                "height": height,
                "data-part": name,
            },
            title=f"{name}: {format_number(count)}, {percent(count / total)}",
        )
        x += length
    return svg.done()
