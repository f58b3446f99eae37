"""Charts drawn on the server: numbers in, SVG out.

Each chart is an `<svg role="img">` with a `<title>` that sums it up, and a `<title>` on every
mark (a day's cell, a day's bar) that says its number in words, so colour is never the only
signal. No inline styles (the Content-Security-Policy forbids them): marks carry CSS classes,
and the stylesheet colours them from its custom properties, so the dark scheme follows.
The markup is written by `config.svg.Svg`, which escapes every attribute value and text, so
the result always parses (a year's heatmap is some 800 elements).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from html import escape

from django.utils.safestring import SafeString, mark_safe

from config.svg import Svg

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


WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def day_label(day: date) -> str:
    return f"{WEEKDAYS[day.weekday()]} {day.day} {MONTHS[day.month - 1]} {day.year}"


def short_day(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]}"


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


def week_rows(weeks: Sequence[Week]) -> SafeString:
    """The heatmap's table body: a row per week, its Monday then a cell per day (empty for a
    day outside the chart). Written here rather than by a template loop: a year is 53 rows of
    7 cells, and the numbers and dates in them need no escaping."""
    rows = []
    for week in weeks:
        monday = f"{week.monday.day} {MONTHS[week.monday.month - 1]} {week.monday.year}"
        cells = "".join(
            f'<td class="num">{"" if count is None else count}</td>' for count in week.counts
        )
        rows.append(f'<tr><th scope="row">{monday}</th>{cells}</tr>')
    return mark_safe("\n".join(rows))  # numbers and dates only


def forecast_rows(days: Sequence[tuple[date, int]]) -> SafeString:
    """The forecast's table body: a row per day, today's counting the overdue cards."""
    rows = [
        f'<tr><th scope="row">{"Today (with overdue)" if index == 0 else day_label(day)}</th>'
        f'<td class="num">{count}</td></tr>'
        for index, (day, count) in enumerate(days)
    ]
    return mark_safe("\n".join(rows))  # numbers and dates only


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
    svg = Svg(chart_id, summary, width, height, "chart chart--heatmap")
    for row, name in WEEKDAY_LABELS.items():
        svg.text(name, x=0, y=top + row * STEP + CELL - 2, cls="chart__label")
    last_month_column = -3
    for column, week in enumerate(weeks):
        x = left + column * STEP
        for row, count in enumerate(week.counts):
            if count is None:
                continue
            day = week.monday + timedelta(days=row)
            if day.day == 1 and column - last_month_column >= 3:
                svg.text(MONTHS[day.month - 1], x=x, y=top - 6, cls="chart__label")
                last_month_column = column
            level = heat_level(count, maximum)
            today = " heat--today" if day == days[-1][0] else ""
            title = escape(f"{day_label(day)}: {plural(count, 'review')}", quote=False)
            # A cell's values are numbers and an ISO date: only its title needs escaping.
            svg.write(
                f'<rect class="heat heat--{level}{today}" x="{x}" y="{top + row * STEP}"'
                f' width="{CELL}" height="{CELL}" rx="2" data-date="{day.isoformat()}"'
                f' data-count="{count}"><title>{title}</title></rect>'
            )
    return svg.done()


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
    svg = Svg(chart_id, summary + ".", width, height, "chart chart--forecast")
    base = top + plot
    for value in sorted({0, maximum // 2, maximum}):
        y = base - plot * value / maximum if maximum else base
        svg.mark("line", {"class": "chart__grid", "x1": left - 4, "x2": width, "y1": y, "y2": y})
        svg.text(str(value), x=left - 8, y=y + 4, cls="chart__label", anchor="end")
    for index, (day, count) in enumerate(days):
        x = left + index * bar_step + (bar_step - bar_width) / 2
        tall = plot * count / maximum if maximum else 0
        when = "Today, with the overdue ones" if index == 0 else day_label(day)
        svg.mark(
            "rect",
            {
                "class": "bar" + (" bar--today" if index == 0 else ""),
                "x": x,
                "y": base - tall,
                "width": bar_width,
                "height": tall,
                "data-date": day.isoformat(),
                "data-count": count,
            },
            title=f"{when}: {plural(count, 'card')} due",
        )
        if index == 0 or index % 7 == 0:
            svg.text(
                "Today" if index == 0 else short_day(day),
                x=x,
                y=base + 18,
                cls="chart__label",
            )
    return svg.done()


def hbars(rows: Sequence[tuple[str, int, str]], *, chart_id: str, summary: str) -> SafeString:
    """Labelled horizontal bars, one per (label, count, CSS modifier), the count written at
    the end of each bar."""
    label_width, bar_space, row_height = 100, 220, 30
    width, height = label_width + bar_space + 40, row_height * len(rows)
    maximum = max((n for _, n, _ in rows), default=0)
    svg = Svg(chart_id, summary, width, height, "chart chart--bars")
    for index, (label, count, modifier) in enumerate(rows):
        y = index * row_height
        svg.text(label, x=0, y=y + 20, cls="chart__text")
        length = bar_space * count / maximum if maximum else 0
        svg.mark(
            "rect",
            {
                "class": f"hbar hbar--{modifier}",
                "x": label_width,
                "y": y + 6,
                "width": max(length, 2),
                "height": 18,
                "rx": 3,
                "data-count": count,
            },
            title=f"{label}: {count}",
        )
        svg.text(str(count), x=label_width + max(length, 2) + 8, y=y + 20, cls="chart__text")
    return svg.done()


def _nice_ceiling(value: int) -> int:
    """The axis top: the value rounded up to 1, 2 or 5 times a power of ten (0 stays 0)."""
    if value <= 0:
        return 0
    power = int(10 ** math.floor(math.log10(value)))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power  # pragma: no cover
