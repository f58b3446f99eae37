"""Every HTML page carries a Content-Security-Policy that runs scripts from this site only,
and the pages keep working under it: no inline script anywhere."""

import re

import pytest
from django.test import Client

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    parsed = [part.split() for part in policy.split(";") if part.strip()]
    return {name: sources for name, *sources in parsed}


def scripts(html: str) -> list[tuple[str, str]]:
    """Each <script>'s attributes and body."""
    return re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S)


@pytest.fixture
def browser():
    return Client(headers={"X-Forwarded-Proto": "https"})


@pytest.fixture
def staff_browser(browser):
    browser.force_login(UserFactory(is_staff=True, is_superuser=True))
    return browser


@pytest.mark.parametrize("path", ["/admin/login/", "/api/v1/docs/"])
def test_public_pages_allow_scripts_from_this_site_only(browser, path):
    response = browser.get(path)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    policy = directives(response)
    assert policy["script-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/admin/", "/admin/accounts/user/", "/admin/course/lesson/add/"])
def test_admin_pages_for_staff_carry_the_policy_and_no_inline_script(staff_browser, path):
    response = staff_browser.get(path)

    assert response.status_code == 200
    assert directives(response)["script-src"] == ["'self'"]
    assert [body for _, body in scripts(response.content.decode()) if body.strip()] == []


def test_the_api_docs_load_every_script_from_this_site(browser):
    response = browser.get("/api/v1/docs/")

    html = response.content.decode()
    found = scripts(html)
    sources = [re.search(r'src="([^"]+)"', attributes).group(1) for attributes, _ in found]
    assert len(found) == 3
    assert all(body.strip() == "" for _, body in found)
    assert all(source.startswith("/static/") for source in sources)
    assert [browser.get(source).status_code for source in sources] == [200, 200, 200]
    assert "<style" not in html
    assert 'data-schema-url="/api/v1/schema/"' in html


def test_the_docs_start_up_script_is_served_as_javascript(browser):
    response = browser.get("/static/api_docs/swagger_ui_start.js")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "SwaggerUIBundle(" in b"".join(response.streaming_content).decode()
