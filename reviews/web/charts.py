"""Charts drawn on the server: numbers in, SVG out.

Each chart is an `<svg role="img">` with a `<title>` that sums it up, and a `<title>` on every
mark (a day's cell, a day's bar) that says its number in words, so colour is never the only
signal. No inline styles (the Content-Security-Policy forbids them): marks carry CSS classes,
and the stylesheet colours them from its custom properties, so the dark scheme follows.
The markup is built as XML elements, so every text is escaped and the result always parses.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from django.utils.safestring import SafeString, mark_safe

SVG_NS = "http://www.w3.org/2000/svg"
LEVELS = 4
"""Shades of the heatmap above "none"."""

CELL, GAP = 12, 3
STEP = CELL + GAP
WEEKDAY_LABELS = {0: "Mon", 2: "Wed", 4: "Fri"}


@dataclass(frozen=True)
class Level:
    """One shade of the heatmap and the counts it stands for (`low` to `high`, inclusive)."""

    level: int
    low: int
    high: int

    @property
    def label(self) -> str:
        if self.high == self.low:
            return str(self.low)
        return f"{self.low}–{self.high}"


@dataclass(frozen=True)
class Week:
    """A row of the heatmap's table: the week's Monday and its seven counts (None for a day
    outside the chart)."""

    monday: date
    counts: tuple[int | None, ...]


def day_label(day: date) -> str:
    return f"{day:%a} {day.day} {day:%b %Y}"


def short_day(day: date) -> str:
    return f"{day.day} {day:%b}"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def heat_level(count: int, maximum: int) -> int:
    """0 for no reviews; otherwise 1 to LEVELS, in equal steps up to the busiest day."""
    if count <= 0 or maximum <= 0:
        return 0
    return min(LEVELS, max(1, math.ceil(LEVELS * count / maximum)))


def heat_levels(maximum: int) -> list[Level]:
    """The legend: each shade with the counts it covers, leaving out shades no count reaches
    (with a busiest day of 2, only two shades are used)."""
    levels = [Level(0, 0, 0)]
    for level in range(1, LEVELS + 1):
        counts = [n for n in range(1, maximum + 1) if heat_level(n, maximum) == level]
        if counts:
            levels.append(Level(level, counts[0], counts[-1]))
    return levels


def heatmap_weeks(days: Sequence[tuple[date, int]]) -> list[Week]:
    """The days grouped in weeks from Monday, as the heatmap's columns are."""
    if not days:
        return []
    counts = dict(days)
    first, last = days[0][0], days[-1][0]
    monday = first - timedelta(days=first.weekday())
    weeks = []
    while monday <= last:
        week = [monday + timedelta(days=i) for i in range(7)]
        weeks.append(
            Week(monday, tuple(counts.get(d) if first <= d <= last else None for d in week))
        )
        monday += timedelta(days=7)
    return weeks


def heatmap(days: Sequence[tuple[date, int]], *, chart_id: str) -> SafeString:
    """A year of reviews as a grid: a column per week (Monday at the top), a cell per day,
    shaded by how many reviews it had; months named above, weekdays beside."""
    maximum = max((n for _, n in days), default=0)
    total = sum(n for _, n in days)
    active = sum(1 for _, n in days if n)
    weeks = heatmap_weeks(days)
    left, top = 30, 18
    width, height = left + len(weeks) * STEP + 16, top + 7 * STEP  # room for a last month's name
    summary = (
        f"Reviews per day from {day_label(days[0][0])} to {day_label(days[-1][0])}: "
        f"{plural(total, 'review')} on {plural(active, 'day')}, at most {maximum} in a day."
        if days
        else "No days to show."
    )
    svg = _svg(chart_id, summary, width, height, "chart chart--heatmap")
    for row, name in WEEKDAY_LABELS.items():
        _text(svg, name, x=0, y=top + row * STEP + CELL - 2, cls="chart__label")
    last_month_column = -3
    for column, week in enumerate(weeks):
        x = left + column * STEP
        for row, count in enumerate(week.counts):
            if count is None:
                continue
            day = week.monday + timedelta(days=row)
            if day.day == 1 and column - last_month_column >= 3:
                _text(svg, f"{day:%b}", x=x, y=top - 6, cls="chart__label")
                last_month_column = column
            level = heat_level(count, maximum)
            cell = ET.SubElement(
                svg,
                "rect",
                {
                    "class": f"heat heat--{level}" + (" heat--today" if day == days[-1][0] else ""),
                    "x": str(x),
                    "y": str(top + row * STEP),
                    "width": str(CELL),
                    "height": str(CELL),
                    "rx": "2",
                    "data-date": day.isoformat(),
                    "data-count": str(count),
                },
            )
            ET.SubElement(cell, "title").text = f"{day_label(day)}: {plural(count, 'review')}"
    return _done(svg)


def forecast(days: Sequence[tuple[date, int]], *, chart_id: str) -> SafeString:
    """Cards due on each coming day as bars; the first day (today) includes the overdue ones."""
    left, top, bottom, plot = 34, 10, 30, 120
    bar_step, bar_width = 15, 10
    maximum = _nice_ceiling(max((n for _, n in days), default=0))
    width, height = left + len(days) * bar_step + 24, top + plot + bottom  # room for a last date
    total = sum(n for _, n in days)
    busiest = max(days, key=lambda d: d[1]) if days else None
    summary = f"Cards due on each of the next {plural(len(days), 'day')}: {total} in all"
    if busiest and busiest[1]:
        summary += f", most on {day_label(busiest[0])} ({busiest[1]})"
    svg = _svg(chart_id, summary + ".", width, height, "chart chart--forecast")
    base = top + plot
    for value in sorted({0, maximum // 2, maximum}):
        y = base - plot * value / maximum if maximum else base
        ET.SubElement(
            svg,
            "line",
            {
                "class": "chart__grid",
                "x1": str(left - 4),
                "x2": str(width),
                "y1": _n(y),
                "y2": _n(y),
            },
        )
        _text(svg, str(value), x=left - 8, y=y + 4, cls="chart__label", anchor="end")
    for index, (day, count) in enumerate(days):
        x = left + index * bar_step + (bar_step - bar_width) / 2
        tall = plot * count / maximum if maximum else 0
        bar = ET.SubElement(
            svg,
            "rect",
            {
                "class": "bar" + (" bar--today" if index == 0 else ""),
                "x": _n(x),
                "y": _n(base - tall),
                "width": str(bar_width),
                "height": _n(tall),
                "data-date": day.isoformat(),
                "data-count": str(count),
            },
        )
        when = "Today, with the overdue ones" if index == 0 else day_label(day)
        ET.SubElement(bar, "title").text = f"{when}: {plural(count, 'card')} due"
        if index == 0 or index % 7 == 0:
            _text(
                svg,
                "Today" if index == 0 else short_day(day),
                x=x,
                y=base + 18,
                cls="chart__label",
            )
    return _done(svg)


def hbars(rows: Sequence[tuple[str, int, str]], *, chart_id: str, summary: str) -> SafeString:
    """Labelled horizontal bars, one per (label, count, CSS modifier), the count written at
    the end of each bar."""
    label_width, bar_space, row_height = 100, 220, 30
    width, height = label_width + bar_space + 40, row_height * len(rows)
    maximum = max((n for _, n, _ in rows), default=0)
    svg = _svg(chart_id, summary, width, height, "chart chart--bars")
    for index, (label, count, modifier) in enumerate(rows):
        y = index * row_height
        _text(svg, label, x=0, y=y + 20, cls="chart__text")
        length = bar_space * count / maximum if maximum else 0
        bar = ET.SubElement(
            svg,
            "rect",
            {
                "class": f"hbar hbar--{modifier}",
                "x": str(label_width),
                "y": str(y + 6),
                "width": _n(max(length, 2)),
                "height": "18",
                "rx": "3",
                "data-count": str(count),
            },
        )
        ET.SubElement(bar, "title").text = f"{label}: {count}"
        _text(svg, str(count), x=label_width + max(length, 2) + 8, y=y + 20, cls="chart__text")
    return _done(svg)


def _svg(chart_id: str, summary: str, width: float, height: float, cls: str) -> ET.Element:
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "class": cls,
            "role": "img",
            "aria-labelledby": f"{chart_id}-title",
            "viewBox": f"0 0 {_n(width)} {_n(height)}",
            "width": _n(width),
            "height": _n(height),
            "id": chart_id,
        },
    )
    ET.SubElement(svg, "title", {"id": f"{chart_id}-title"}).text = summary
    return svg


def _text(parent: ET.Element, text: str, *, x: float, y: float, cls: str, anchor: str = "") -> None:
    attributes = {"class": cls, "x": _n(x), "y": _n(y), "aria-hidden": "true"}
    if anchor:
        attributes["text-anchor"] = anchor
    ET.SubElement(parent, "text", attributes).text = text


def _done(svg: ET.Element) -> SafeString:
    return mark_safe(ET.tostring(svg, encoding="unicode"))


def _nice_ceiling(value: int) -> int:
    """The axis top: the value rounded up to 1, 2 or 5 times a power of ten (0 stays 0)."""
    if value <= 0:
        return 0
    power = int(10 ** math.floor(math.log10(value)))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power  # pragma: no cover


def _n(value: float) -> str:
    """A coordinate, without a trailing `.0`."""
    return f"{value:.1f}".removesuffix(".0")
