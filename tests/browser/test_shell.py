"""The site's shell in a browser: the home page for a visitor, the error pages."""

from __future__ import annotations

import pytest

from tests.browser.conftest import check_page, screenshot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_a_visitor_sees_what_residual_is_and_the_course(open_browser, course, javascript):
    browse = open_browser(javascript=javascript)

    response = browse.go("/")

    assert response.status == 200
    assert browse.page.get_by_role("heading", level=1).inner_text().startswith("Learn how")
    assert browse.page.get_by_role("link", name="Sign in").count() >= 1
    assert "How transformers work" in browse.page.locator(".catalogue").inner_text()
    check_page(browse)
    screenshot(browse.page, f"home-visitor-{'js' if javascript else 'nojs'}")
    if javascript:
        assert browse.network.scripts, "htmx and the site's script load"


def test_an_unknown_page_is_a_404_in_the_sites_layout(visitor, course):
    response = visitor.go("/no/such/page/")

    assert response.status == 404
    assert visitor.page.get_by_role("heading", level=1).inner_text() == "Page not found"
    assert visitor.page.get_by_role("link", name="Go to the home page").count() == 1
    check_page(visitor)
