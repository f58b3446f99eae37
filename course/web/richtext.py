"""A section's stored HTML made ready for the page, at display time: glossary terms linked to
their card, and what can be wider than a phone (display formulas, tables, code) wrapped so it
scrolls inside its own focusable box instead of widening the page.

The HTML was sanitized when the course was loaded, so its tags are well formed and `<` never
appears in text; the only markup added here is built from constants and escaped text.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.utils.safestring import SafeString, mark_safe

_TAG = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>""")
_NAME = re.compile(r"</?\s*([a-zA-Z][a-zA-Z0-9]*)")
# Terms are never linked inside these: a link in a link, a term in code or in a formula, a
# heading turned into a button.
_NO_LINKS = {"a", "button", "code", "pre", "math", "h1", "h2", "h3", "h4", "h5", "h6"}
_FORMULA = '<span class="formula" role="region" aria-label="Formula" tabindex="0">'
_TABLE = '<div class="table-wrap" role="region" aria-label="Table" tabindex="0">'
_DISPLAY = re.compile(r"""\sdisplay\s*=\s*["']?block""")


@dataclass(frozen=True, eq=False)
class Glossary:
    """The terms to look for, and the slug of the term each name (term or alias) stands for.
    One is built for each set of terms and kept, so it compares (and hashes) by identity."""

    pattern: re.Pattern[str] | None
    slug_of: dict[str, str] = field(default_factory=dict)


def glossary(terms: Iterable[tuple[str, Iterable[str]]]) -> Glossary:
    """The matcher for (slug, names) pairs. A name with a capital after its first letter
    (ReLU, MLP) matches only as written, any other name in any case; a plural -s or -es is part
    of the match. Single letters (the Q, K and V of attention) are too common in prose to stand
    for a term. The same terms give the same matcher, built once."""
    return _glossary(tuple((slug, tuple(names)) for slug, names in terms))


@functools.lru_cache(maxsize=64)
def _glossary(terms: tuple[tuple[str, tuple[str, ...]], ...]) -> Glossary:
    written: dict[str, str] = {}
    slug_of: dict[str, str] = {}
    for slug, names in terms:
        for name in names:
            name = " ".join(name.split())
            if len(name) > 1 and name.casefold() not in slug_of:
                slug_of[name.casefold()] = slug
                written[name.casefold()] = name
    if not slug_of:
        return Glossary(pattern=None)
    alternatives = []
    # Longest first, so "multi-head attention" wins over "attention".
    for key in sorted(slug_of, key=len, reverse=True):
        name = written[key]
        escaped = re.escape(html.escape(name, quote=False)).replace(r"\ ", r"\s+")
        exact = any(character.isupper() for character in name[1:])
        alternatives.append(escaped if exact else f"(?i:{escaped})")
    pattern = re.compile(r"(?<![\w&#-])(" + "|".join(alternatives) + r")(?:e?s)?(?![\w-])")
    return Glossary(pattern=pattern, slug_of=slug_of)


@dataclass(frozen=True)
class Prepared:
    html: SafeString
    terms: list[str]
    """Slugs of the terms linked, in the order they first appear."""


def prepare(body_html: str, terms: Glossary, *, linked_before: Iterable[str] = ()) -> Prepared:
    """Links the first occurrence of each glossary term in the text (outside links, code,
    formulas and headings) to its card, except terms in `linked_before`, and wraps display
    formulas and tables in focusable scrolling regions. A section prepared once with the same
    terms is not prepared again (the result is shared: its `terms` are not to be changed)."""
    return _prepare(body_html, terms, frozenset(linked_before))


@functools.lru_cache(maxsize=512)
def _prepare(body_html: str, terms: Glossary, linked_before: frozenset[str]) -> Prepared:
    out: list[str] = []
    linked: list[str] = []
    skip = set(linked_before)
    shielded = 0
    in_formula = False
    position = 0
    for tag in _TAG.finditer(body_html):
        text = body_html[position : tag.start()]
        out.append(text if shielded else _link(text, terms, linked, skip))
        position = tag.end()
        markup = tag.group(0)
        match = _NAME.match(markup)
        name = match.group(1).lower() if match else ""
        closing = markup.startswith("</")
        if name in _NO_LINKS and not markup.endswith("/>"):
            shielded = max(shielded - 1, 0) if closing else shielded + 1
        if name == "math" and not closing and _DISPLAY.search(markup):
            in_formula = True
            out.append(_FORMULA + markup)
        elif name == "math" and closing and in_formula:
            in_formula = False
            out.append(markup + "</span>")
        elif name == "table":
            out.append(markup + "</div>" if closing else _TABLE + markup)
        elif name == "pre" and not closing:
            out.append(markup[:-1] + ' tabindex="0">')
        else:
            out.append(markup)
    tail = body_html[position:]
    out.append(tail if shielded else _link(tail, terms, linked, skip))
    return Prepared(html=mark_safe("".join(out)), terms=linked)  # see the module


def _link(text: str, terms: Glossary, linked: list[str], skip: set[str]) -> str:
    if terms.pattern is None or not text.strip():
        return text

    def replace(match: re.Match[str]) -> str:
        slug = terms.slug_of.get(" ".join(html.unescape(match.group(1)).split()).casefold())
        if slug is None or slug in linked or slug in skip:
            return match.group(0)
        linked.append(slug)
        return (
            f'<button type="button" class="link-button term" popovertarget="term-{slug}"'
            f' data-glossary="#glossary-{slug}">{match.group(0)}</button>'
        )

    return terms.pattern.sub(replace, text)
