"""The labs' pictures, drawn on the server (`config.svg`): numbers in, SVG out, each beside a
table of the same numbers on its page."""

from __future__ import annotations

import math
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


def number_line(
    *, low: float, high: float, value: float, start: float, end: float, chart_id: str
) -> SafeString:
    """A stretch of the number line from `start` to `end`, the interval (low, high] shaded,
    and `value` marked on it."""
    width, height, pad = 480, 64, 16

    def x_at(v: float) -> float:
        return pad + (width - 2 * pad) * (min(max(v, start), end) - start) / (end - start)

    inside = low < value <= high
    summary = (
        f"The biases above {format_number(low)} and up to {format_number(high)} make an AND "
        f"gate; this bias, {format_number(value)}, is {'inside' if inside else 'outside'}."
    )
    svg = Svg(chart_id, summary, width, height, "chart chart--line")
    svg.mark("line", {"class": "chart__axis", "x1": pad, "x2": width - pad, "y1": 30, "y2": 30})
    svg.mark(
        "rect",
        {
            "class": "gate-band",
            "x": x_at(low),
            "y": 22,
            "width": x_at(high) - x_at(low),
            "height": 16,
        },
        title=f"AND gate: above {format_number(low)}, up to {format_number(high)}",
    )
    svg.mark("circle", {"class": "gate-open", "cx": x_at(low), "cy": 30, "r": 5}, title="excluded")
    svg.mark(
        "circle", {"class": "gate-closed", "cx": x_at(high), "cy": 30, "r": 5}, title="included"
    )
    for tick in range(math.ceil(start), math.floor(end) + 1):
        svg.text(format_number(tick), x=x_at(tick), y=58, cls="chart__label", anchor="middle")
    svg.mark(
        "path",
        {
            "class": f"gate-marker{' gate-marker--in' if inside else ''}",
            "d": f"M{x_at(value):.1f} 18 l-6 -10 h12 z",
        },
        title=f"this bias: {format_number(value)}",
    )
    return svg.done()


def activations(
    curves: dict[str, list[float]],
    *,
    minimum: tuple[float, float],
    points: Sequence[tuple[float, float]],
    activation: str,
    chart_id: str,
) -> SafeString:
    """ReLU and GELU drawn together, GELU's minimum marked, and the truth table's four
    pre-activations marked on the activation in use."""
    width, height, left, bottom, top, right = 480, 260, 36, 26, 10, 10
    z_low, z_high, y_low, y_high = curves["z"][0], curves["z"][-1], -0.5, 3.0

    def x_at(z: float) -> float:
        return left + (width - left - right) * (z - z_low) / (z_high - z_low)

    def y_at(y: float) -> float:
        clipped = min(max(y, y_low), y_high)
        return top + (height - top - bottom) * (y_high - clipped) / (y_high - y_low)

    z_at, y_min = minimum
    summary = (
        f"ReLU and GELU from z = {format_number(z_low)} to {format_number(z_high)}: GELU dips "
        f"to {format_number(round(y_min, 3))} at z ≈ {format_number(round(z_at, 2))}, ReLU "
        "stays at 0 for every negative z."
    )
    svg = Svg(chart_id, summary, width, height, "chart chart--activations")
    svg.mark(
        "line",
        {"class": "chart__grid", "x1": left, "x2": width - right, "y1": y_at(0), "y2": y_at(0)},
    )
    svg.mark(
        "line",
        {"class": "chart__grid", "x1": x_at(0), "x2": x_at(0), "y1": top, "y2": height - bottom},
    )
    for tick in range(math.ceil(z_low), math.floor(z_high) + 1):
        svg.text(
            format_number(tick), x=x_at(tick), y=height - 8, cls="chart__label", anchor="middle"
        )
    for tick in (0, 1, 2, 3):
        svg.text(
            format_number(tick), x=left - 6, y=y_at(tick) + 4, cls="chart__label", anchor="end"
        )
    for name in ("relu", "gelu"):
        line = " ".join(
            f"{x_at(z):.1f},{y_at(y):.1f}" for z, y in zip(curves["z"], curves[name], strict=True)
        )
        svg.mark("polyline", {"class": f"curve curve--{name}", "points": line}, title=name.upper())
    svg.mark(
        "circle",
        {"class": "curve-minimum", "cx": x_at(z_at), "cy": y_at(y_min), "r": 4},
        title=f"GELU's minimum: {_rounded(y_min, 3)} at z ≈ {_rounded(z_at, 2)}",
    )
    svg.text(
        f"min {format_number(round(y_min, 2))}",
        x=x_at(z_at),
        y=y_at(y_min) + 18,
        cls="chart__label",
        anchor="middle",
    )
    for z, y in points:
        if z_low <= z <= z_high:
            svg.mark(
                "circle",
                {
                    "class": f"gate-point gate-point--{activation}",
                    "cx": x_at(z),
                    "cy": y_at(y),
                    "r": 5,
                },
                title=f"z = {format_number(z)}: {activation.upper()} gives {_rounded(y, 3)}",
            )
    return svg.done()


def _rounded(value: float, places: int) -> str:
    return format_number(round(value, places))


def vectors(
    *, row_length: float, vector_length: float, angle_degrees: float, shadow: float, chart_id: str
) -> SafeString:
    """The question's row and the token's vector in the plane they span: the row along the
    axis, the vector at its angle, and the vector's shadow on the row (the dot product over
    the row's length)."""
    width, height, pad = 480, 240, 24
    longest = max(row_length, vector_length, abs(shadow), 1e-9)
    unit = (width - 2 * pad) / 2 / longest
    ox, oy = width / 2, height - 40
    angle = math.radians(angle_degrees)
    unit = min(unit, (oy - pad) / max(vector_length * math.sin(angle), 1e-9))
    vx, vy = (
        ox + unit * vector_length * math.cos(angle),
        oy - unit * vector_length * math.sin(angle),
    )
    summary = (
        f"The row, {_rounded(row_length, 2)} long, and the vector, {_rounded(vector_length, 2)} "
        f"long, meet at {_rounded(angle_degrees, 1)}°; the vector's shadow on the row is "
        f"{_rounded(shadow, 2)} long."
    )
    svg = Svg(chart_id, summary, width, height, "chart chart--vectors")
    svg.mark("line", {"class": "chart__grid", "x1": pad, "x2": width - pad, "y1": oy, "y2": oy})
    svg.mark(
        "rect",
        {
            "class": "shadow",
            "x": min(ox, ox + unit * shadow),
            "y": oy + 6,
            "width": max(abs(unit * shadow), 1),
            "height": 9,
        },
        title=f"the shadow: {_rounded(shadow, 2)}",
    )
    svg.mark(
        "line",
        {"class": "arrow arrow--row", "x1": ox, "y1": oy, "x2": ox + unit * row_length, "y2": oy},
        title=f"the row (the question): length {_rounded(row_length, 2)}",
    )
    svg.mark(
        "line",
        {
            "class": "arrow arrow--vector",
            "x1": ox,
            "y1": oy,
            "x2": round(vx, 1),
            "y2": round(vy, 1),
        },
        title=f"the token's vector: length {_rounded(vector_length, 2)}",
    )
    svg.mark(
        "line",
        {
            "class": "drop",
            "x1": round(vx, 1),
            "y1": round(vy, 1),
            "x2": ox + unit * shadow,
            "y2": oy,
        },
    )
    svg.text(f"{_rounded(angle_degrees, 1)}°", x=ox + 34, y=oy - 10, cls="chart__label")
    svg.text("row", x=ox + unit * row_length, y=oy + 32, cls="chart__label", anchor="middle")
    svg.text("shadow", x=ox + unit * shadow / 2, y=oy + 32, cls="chart__label", anchor="middle")
    svg.text("vector", x=round(vx, 1), y=round(vy, 1) - 8, cls="chart__label", anchor="middle")
    return svg.done()


def stream(
    directions: Sequence[str],
    own: Sequence[float],
    added: Sequence[float] | None,
    *,
    chart_id: str,
    summary: str,
) -> SafeString:
    """A token's vector as one bar per direction: what it held (`own`), and when given, what
    the MLP adds on top of it, drawn on from the end of the first."""
    row_h, left, right, top = 30, 112, 56, 6
    width = 480
    height = top + row_h * len(directions) + 4
    totals = [o + (added[i] if added else 0) for i, o in enumerate(own)]
    longest = max([*map(abs, totals), *map(abs, own), 1.0])
    unit = (width - left - right) / longest
    svg = Svg(chart_id, summary, width, height, "chart chart--stream")
    svg.mark("line", {"class": "chart__axis", "x1": left, "x2": left, "y1": top, "y2": height})
    for i, name in enumerate(directions):
        y = top + i * row_h + 5
        svg.text(name, x=left - 8, y=y + 15, cls="chart__label", anchor="end")
        if own[i]:
            svg.mark(
                "rect",
                {"class": "stream-own", "x": left, "y": y, "width": unit * own[i], "height": 20},
                title=f"{name}: {format_number(own[i])} in the token's vector",
            )
        extra = added[i] if added else 0
        if extra:
            svg.mark(
                "rect",
                {
                    "class": "stream-added",
                    "x": left + unit * own[i],
                    "y": y,
                    "width": unit * extra,
                    "height": 20,
                    "data-direction": name,
                },
                title=f"{name}: {format_number(extra)} added by the MLP",
            )
        if totals[i]:
            svg.text(
                format_number(totals[i]),
                x=left + unit * totals[i] + 6,
                y=y + 15,
                cls="chart__label",
            )
    return svg.done()


def stream_grid(
    directions: Sequence[str],
    columns: Sequence[tuple[str, Sequence[float], bool]],
    *,
    chart_id: str,
    summary: str,
) -> SafeString:
    """The residual stream part by part: one column per stage (its short label, the vector
    after it, whether the part was on), one row per direction, each cell shaded by how much of
    that direction the vector holds and labelled with it."""
    left, top, row_h = 96, 44, 34
    col_w = 52
    width = left + col_w * len(columns) + 4
    height = top + row_h * len(directions) + 4
    peak = max([1.0, *(abs(v) for _, values, _ in columns for v in values)])
    svg = Svg(chart_id, summary, width, height, "chart chart--stream-grid")
    for i, name in enumerate(directions):
        svg.text(name, x=left - 8, y=top + i * row_h + 22, cls="chart__label", anchor="end")
    for j, (label, values, on) in enumerate(columns):
        x = left + j * col_w
        svg.text(label, x=x + col_w / 2, y=16, cls="chart__label", anchor="middle")
        if not on:
            svg.text("off", x=x + col_w / 2, y=34, cls="chart__label stream-off", anchor="middle")
        for i, value in enumerate(values):
            y = top + i * row_h
            svg.mark(
                "rect",
                {
                    "class": "stream-cell" + ("" if on else " stream-cell--off"),
                    "x": x + 2,
                    "y": y + 2,
                    "width": col_w - 4,
                    "height": row_h - 4,
                    "fill-opacity": round(0.05 + 0.3 * min(abs(value) / peak, 1), 2),
                },
                title=f"{label}: {directions[i]} {format_number(value)}",
            )
            if value:
                svg.text(
                    format_number(value),
                    x=x + col_w / 2,
                    y=y + 22,
                    cls="chart__label stream-value",
                    anchor="middle",
                )
    return svg.done()
