"""Reading the served HTML the way a browser would: the forms on a page and their fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Form:
    action: str
    fields: dict[str, str] = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)
    buttons: list[tuple[str, str, str]] = field(default_factory=list)  # name, value, formaction


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self.current: Form | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.current = Form(action=attr.get("action", ""))
            self.forms.append(self.current)
        elif self.current is None:
            return
        elif tag == "input":
            kind = attr.get("type", "text")
            if kind in ("radio", "checkbox"):
                self.current.options.setdefault(attr["name"], []).append(attr["value"])
            else:
                self.current.fields[attr["name"]] = attr.get("value", "")
        elif tag == "textarea":
            self.current.fields[attr["name"]] = ""
        elif tag == "button":
            self.current.buttons.append(
                (attr.get("name", ""), attr.get("value", ""), attr.get("formaction", ""))
            )

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.current = None


def forms_in(html: str) -> list[Form]:
    parser = _Forms()
    parser.feed(html)
    return parser.forms


def answer_form(html: str, action_part: str = "") -> Form:
    """The page's answer form (the one with a `served` field)."""
    found = [f for f in forms_in(html) if "served" in f.fields and action_part in f.action]
    assert found, "no answer form on the page"
    return found[0]
