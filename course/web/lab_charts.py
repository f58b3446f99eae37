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


def histogram(
    counts: Sequence[int],
    edges: Sequence[float],
    expected: Sequence[float],
    *,
    chart_id: str,
    summary: str,
) -> SafeString:
    """Angles between pairs as bars of their share of all pairs, bin by bin from 0° to 180°,
    the share the exact distribution expects drawn over them as a line, and the band from 89°
    to 91° shaded behind."""
    pairs = max(sum(counts), 1)
    width, height, left, bottom, top = 480, 210, 48, 30, 12
    plot_w, plot_h = width - left - 8, height - bottom - top
    shares = [count / pairs for count in counts]
    peak = max([*shares, *expected, 1e-12])
    step = plot_w / len(counts)

    def x_at(degrees: float) -> float:
        return left + plot_w * degrees / 180

    def y_at(share: float) -> float:
        return top + plot_h * (1 - share / peak)

    svg = Svg(chart_id, summary, width, height, "chart chart--angles")
    svg.mark(
        "rect",
        {
            "class": "angle-band",
            "x": x_at(89),
            "y": top,
            "width": x_at(91) - x_at(89),
            "height": plot_h,
        },
        title="89° to 91°",
    )
    for degrees in (0, 45, 90, 135, 180):
        svg.mark(
            "line",
            {
                "class": "chart__grid",
                "x1": x_at(degrees),
                "x2": x_at(degrees),
                "y1": top,
                "y2": top + plot_h,
            },
        )
        svg.text(f"{degrees}°", x=x_at(degrees), y=height - 8, cls="chart__label", anchor="middle")
    svg.text(percent(peak), x=left - 6, y=top + 10, cls="chart__label", anchor="end")
    svg.text("0", x=left - 6, y=top + plot_h, cls="chart__label", anchor="end")
    for index, count in enumerate(counts):
        if not count:
            continue
        share = shares[index]
        svg.mark(
            "rect",
            {
                "class": "angle-bar",
                "x": round(left + index * step, 2),
                "y": round(y_at(share), 2),
                "width": max(round(step, 2), 0.5),
                "height": round(plot_h * share / peak, 2),
            },
            title=(
                f"{edges[index]:g}° to {edges[index + 1]:g}°: {format_number(count)} "
                f"pair{'' if count == 1 else 's'}, {percent(share)}"
            ),
        )
    points = " ".join(
        f"{left + (index + 0.5) * step:.1f},{y_at(share):.1f}"
        for index, share in enumerate(expected)
    )
    svg.mark("polyline", {"class": "angle-expected", "points": points}, title="expected share")
    return svg.done()
