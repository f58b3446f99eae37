"""A learner's numbers and cards in a browser, with JavaScript on and off: the stats page after
answers made through the answering service (its tables say what the API says), and the card
list filtered, a card suspended and brought back."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from reviews.models import Card
from reviews.stats import learner_stats
from tests.browser.conftest import PHONE, check_page, screenshot
from tests.factories import LessonFactory, QuestionFactory, UserFactory
from tests.reviews.web.helpers import answered

pytestmark = pytest.mark.django_db(transaction=True)

PROMPTS = [
    "How many weights does the MLP of a 1,000-wide model hold (ratio 4)?",
    "How many parameters does one attention layer of GPT-2 small hold?",
    "What is the softmax of (0, ln 2)?",
    "How wide is the hidden layer of an MLP with ratio 4 in a 768-wide model?",
    "How many numbers does the token embedding table of GPT-2 medium hold?",
]


def learner_with_history():
    """Two lessons, five questions, answered over the past weeks: some right, some wrong."""
    user = UserFactory(timezone="Europe/Paris")
    lessons = [
        LessonFactory(slug="the-mlp", number=1, title="The MLP"),
        LessonFactory(slug="attention", number=2, title="Attention"),
    ]
    questions = [
        QuestionFactory(lesson=lessons[i % 2], prompt_markdown=prompt)
        for i, prompt in enumerate(PROMPTS)
    ]
    QuestionFactory.create_batch(3, lesson=lessons[1])  # not seen yet
    now = timezone.now()
    history = [(40, 0), (33, 1), (30, 0), (26, 2), (21, 1), (19, 3), (14, 0), (12, 2), (9, 4)]
    history += [(8, 1), (6, 3), (5, 0), (4, 4), (3, 2), (2, 1), (1, 3), (1, 4), (0, 0), (0, 2)]
    for n, (days_ago, index) in enumerate(history):
        answered(
            user, questions[index], at=now - timedelta(days=days_ago, hours=1), right=n % 4 != 1
        )
    return user


def signed_in(browse, user):
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    browse.page.context.add_cookies(
        [{"name": "sessionid", "value": cookie.value, "url": browse.site}]
    )
    return browse


def cells(page, selector):
    return page.locator(selector).evaluate_all(
        "rows => rows.map(r => Array.from(r.children).map(c => c.textContent.trim()))"
    )


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_a_learner_sees_their_numbers_and_the_tables_match(open_browser, javascript):
    user = learner_with_history()
    browse = signed_in(open_browser(javascript=javascript), user)

    response = browse.go("/stats/")
    page = browse.page

    assert response.status == 200
    assert page.get_by_role("heading", level=1).inner_text() == "Your numbers"
    stats = learner_stats(user=user, now=timezone.now())
    assert page.locator("#heatmap rect.heat").count() == 365
    assert page.locator("#forecast rect.bar").count() == 30
    suffix = "js" if javascript else "nojs"
    screenshot(page, f"stats-{suffix}")
    for details in page.locator("details.chart-numbers summary").all():
        details.click()
    weeks = cells(page, "section[aria-labelledby=year-title] tbody tr")
    assert [int(n) for row in weeks for n in row[1:] if n] == [d["reviews"] for d in stats.heatmap]
    forecast = cells(page, "section[aria-labelledby=forecast-title] tbody tr")
    assert [int(row[1]) for row in forecast] == [d["due"] for d in stats.forecast]
    figures = page.locator(".stats__figures").inner_text()
    assert f"Streak\n{stats.streak_days} day" in figures
    assert f"True retention\n{round(stats.true_retention * 100)}%" in figures
    check_page(browse)
    page.set_viewport_size(PHONE)
    browse.go("/stats/")
    screenshot(page, f"stats-phone-{suffix}")
    page.emulate_media(color_scheme="dark")
    screenshot(page, f"stats-phone-dark-{suffix}")


def test_a_new_learner_sees_what_to_do(open_browser):
    QuestionFactory()
    browse = signed_in(open_browser(viewport=PHONE), UserFactory())

    browse.go("/stats/")

    assert browse.page.get_by_role("heading", name="No reviews yet").is_visible()
    check_page(browse)
    screenshot(browse.page, "stats-empty-phone")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_a_learner_filters_their_cards_suspends_one_and_brings_it_back(open_browser, javascript):
    user = learner_with_history()
    browse = signed_in(open_browser(javascript=javascript), user)
    page = browse.page

    browse.go("/cards/")
    page.get_by_label("Lesson").select_option("attention")
    page.get_by_role("button", name="Show cards").click()

    page.wait_for_url("**/cards/?lesson=attention")
    rows = page.locator(".card-list > li")
    assert rows.count() == 2
    assert "Attention" in rows.first.inner_text()
    check_page(browse)
    screenshot(page, f"cards-{'js' if javascript else 'nojs'}")

    if javascript:
        page.evaluate("window.stillHere = true")
    first = rows.first
    prompt = first.locator(".card-row__prompt").inner_text()
    first.get_by_role("button", name=re.compile(r"^Suspend")).click()
    first.get_by_text("Suspended", exact=True).wait_for()

    card = Card.objects.get(user=user, question__prompt_markdown=prompt)
    assert card.suspended
    assert page.url.endswith("/cards/?lesson=attention")
    if javascript:
        assert page.evaluate("window.stillHere") is True  # the row changed in place
        assert page.evaluate("document.activeElement.textContent").startswith("Unsuspend")
    else:
        assert f"Suspended: “{prompt}”" in page.locator(".messages").inner_text()

    first.get_by_role("button", name=re.compile(r"^Unsuspend")).click()
    first.get_by_role("button", name=re.compile(r"^Suspend")).wait_for()
    card.refresh_from_db()
    assert not card.suspended
    page.set_viewport_size(PHONE)
    check_page(browse)
    screenshot(page, f"cards-phone-{'js' if javascript else 'nojs'}")
