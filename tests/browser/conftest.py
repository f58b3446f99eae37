"""Browser tests: Playwright drives Debian's Chromium (launched by path, never downloaded)
against the live server, with JavaScript on and off. `check_page` is what every page must pass:
axe-core finds no serious or critical violation, nothing loads from another origin, the page
ships at most 60 KB of compressed JavaScript, and it fits 375 px without sideways scrolling.

Playwright's sync API runs an event loop in the test's thread, so Django's guard against
database calls from async code is lifted for these tests (the calls are synchronous).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings

from tests.content import load_shipped

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(django_settings.BASE_DIR) / "docs" / "screenshots"
JS_BUDGET = 60 * 1024
PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 900}


def pytest_collection_modifyitems(config: Any, items: list[pytest.Item]) -> None:
    if Path(CHROMIUM).exists():
        return
    skip = pytest.mark.skip(reason=f"Chromium is not installed at {CHROMIUM} (.ci/run installs it)")
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def browser_server(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Any]:
    """A live server of its own that the browser reaches over plain HTTP: its security
    middleware is built without the redirect to HTTPS (production sits behind a TLS proxy;
    Chromium treats http://localhost as secure, so secure-only cookies still work)."""
    from django.test.utils import override_settings
    from pytest_django.live_server_helper import LiveServer

    with django_db_blocker.unblock(), override_settings(SECURE_SSL_REDIRECT=False):
        server = LiveServer("localhost")
    yield server
    server.stop()


@pytest.fixture
def site(browser_server: Any, transactional_db: Any) -> str:
    return str(browser_server.url)


@pytest.fixture
def course(site: str) -> None:
    load_shipped()


@dataclass
class Network:
    """What a page loaded: every request's address and each script's body."""

    origin: str
    urls: list[str] = field(default_factory=list)
    scripts: dict[str, bytes] = field(default_factory=dict)

    def record_request(self, request: Any) -> None:
        self.urls.append(request.url)

    def record_response(self, response: Any) -> None:
        if response.request.resource_type == "script" and response.ok:
            # A response the page navigated away from has no body left.
            with contextlib.suppress(Exception):
                self.scripts[response.url] = response.body()

    def foreign(self) -> list[str]:
        return [
            url
            for url in self.urls
            if urlsplit(url).scheme in ("http", "https", "ws", "wss")
            and f"{urlsplit(url).scheme}://{urlsplit(url).netloc}" != self.origin
        ]

    def javascript_bytes(self) -> int:
        """Compressed size (gzip, level 9) of the distinct scripts loaded."""
        return sum(len(gzip.compress(body, 9)) for body in self.scripts.values())


@dataclass
class Browse:
    """One visitor's browser: a context with its own cookies, JavaScript on or off."""

    page: Any
    network: Network
    site: str
    javascript: bool
    browser: Any = None

    def go(self, path: str) -> Any:
        response = self.page.goto(self.site + path)
        assert response is not None
        return response


@pytest.fixture
def open_browser(browser: Any, site: str) -> Iterator[Callable[..., Browse]]:
    contexts: list[Any] = []

    def make(*, javascript: bool = True, viewport: dict[str, int] | None = None) -> Browse:
        context = browser.new_context(
            java_script_enabled=javascript,
            viewport=viewport or DESKTOP,
            base_url=site,
            locale="en-GB",
            timezone_id="Europe/Paris",
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        network = Network(origin=site.rstrip("/"))
        page.on("request", network.record_request)
        page.on("response", network.record_response)
        return Browse(
            page=page,
            network=network,
            site=site.rstrip("/"),
            javascript=javascript,
            browser=browser,
        )

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def visitor(open_browser: Callable[..., Browse]) -> Browse:
    return open_browser()


def axe_violations(browse: Browse) -> list[str]:
    """axe-core's serious and critical findings on the page as the visitor has it. axe is a
    script, so a page seen with JavaScript off is checked as that same HTML, served at its own
    address to a page that runs scripts."""
    from axe_playwright_python.sync_playwright import Axe

    page = browse.page
    if browse.javascript:
        results = Axe().run(page)
    else:
        html, url = page.content(), page.url
        context = browse.browser.new_context(viewport=page.viewport_size)
        try:
            checker = context.new_page()
            checker.route(url, lambda route: route.fulfill(body=html, content_type="text/html"))
            checker.goto(url)
            results = Axe().run(checker)
        finally:
            context.close()
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:5])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def sideways_overflow(page: Any) -> int:
    """How far the page is wider than a 375 px phone (0 when it fits)."""
    size = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        width = int(page.evaluate("document.documentElement.scrollWidth"))
    finally:
        page.set_viewport_size(size)
    return max(width - PHONE["width"], 0)


def check_page(browse: Browse) -> None:
    """What every page of the site must pass, checked on the page as it is now."""
    page = browse.page
    problems = axe_violations(browse)
    assert not problems, f"{page.url}: accessibility violations:\n" + "\n".join(problems)
    assert sideways_overflow(page) == 0, f"{page.url} scrolls sideways at 375 px"
    assert not browse.network.foreign(), f"{page.url} loaded {browse.network.foreign()}"
    shipped = browse.network.javascript_bytes()
    assert shipped <= JS_BUDGET, f"{page.url} ships {shipped} bytes of compressed JavaScript"


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
