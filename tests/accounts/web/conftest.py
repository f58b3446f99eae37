"""The account pages through Django's test client, as a browser behind the TLS proxy sees
them."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from config.throttles import SimpleRateThrottle
from tests.factories import UserFactory


@pytest.fixture
def web():
    return Client(headers={"X-Forwarded-Proto": "https", "Accept": "text/html"})


@pytest.fixture
def learner(web):
    user = UserFactory()
    web.force_login(user)
    return user


@pytest.fixture
def rates(monkeypatch):
    def set_rate(scope: str, rate: str) -> None:
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)

    return set_rate


def text_of(response) -> str:
    """The page's words, without its tags and with spaces collapsed."""
    words = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", words)


def error_summary(response) -> str:
    match = re.search(r'<div class="error-summary".*?</div>', response.content.decode(), re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(0))) if match else ""
