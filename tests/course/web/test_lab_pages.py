"""The labs' pages over the test client: the parameter counter gives the engine's and the API's
numbers, checked against a count made here from the formulas; bad input is refused by name."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.throttles import SimpleRateThrottle
from course.web.labs import PRESETS
from engine import labs
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PAGE = "/labs/parameters/"


def get(client, path, **headers):
    return client.get(path, secure=True, headers=headers)


def shown(response, element_id):
    found = re.search(rf'id="{element_id}"[^>]*>([^<]*)<', response.content.decode())
    assert found, f"no #{element_id} on the page"
    return found.group(1)


def as_number(text):
    return int(text.replace(",", ""))


def counted_here(*, d_model, layers, ratio, vocab, context, biases, tied, norms):
    """Every weight, bias and gain, written out from the formulas rather than the engine."""
    d, hidden = d_model, ratio * d_model
    attention = 4 * d * d + (4 * d if biases else 0)
    mlp = d * hidden + hidden * d + ((hidden + d) if biases else 0)
    block_norms = 2 * (d + d) if norms else 0
    embeddings = vocab * d + context * d + (0 if tied else vocab * d)
    return embeddings + layers * (attention + mlp + block_norms) + (2 * d if norms else 0)


def form_query(values):
    flags = ("biases", "tied", "norms")
    return {
        **{k: v for k, v in values.items() if k not in flags},
        **{k: "on" for k in flags if values[k]},
    }


def test_the_labs_page_lists_the_counter(client):
    response = get(client, "/labs/")

    assert response.status_code == 200
    assert f'href="{PAGE}"' in response.content.decode()


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.slug)
def test_each_preset_counts_what_the_formulas_and_the_api_count(client, preset):
    response = get(client, f"{PAGE}?preset={preset.slug}")
    api = get(client, "/api/v1/labs/parameters/?" + urlencode(preset.values)).json()

    assert response.status_code == 200
    total = as_number(shown(response, "lab-total"))
    assert total == counted_here(**preset.values) == labs.parameters(**preset.values).total
    assert total == api["total"]
    mlp = next(part["total"] for part in api["parts"] if part["name"] == "MLP")
    assert shown(response, "lab-mlp-share") == f"{100 * mlp / total:.1f}%"


def test_the_lectures_figures_come_out():
    by_slug = {preset.slug: preset.values for preset in PRESETS}

    # ../shared/seeds/README.md: GPT-2 small with tied embeddings, and the lecture's GPT-3 tally.
    assert counted_here(**by_slug["gpt2-small"]) == 124_439_808
    assert counted_here(**by_slug["gpt3"]) == 175_181_291_520


def test_the_form_counts_what_it_is_sent_and_unticked_boxes_count_nothing(client):
    values = {"d_model": 832, "layers": 3, "ratio": 2, "vocab": 1000, "context": 16}
    values |= {"biases": False, "tied": True, "norms": True}

    response = get(client, f"{PAGE}?{urlencode(form_query(values))}")

    assert response.status_code == 200
    assert as_number(shown(response, "lab-total")) == counted_here(**values)
    assert shown(response, "d_model-value") == "832"
    html = response.content.decode()
    assert 'name="biases"' in html
    assert not re.search(r'name="biases"[^>]*checked', html)
    assert re.search(r'name="tied"[^>]*checked', html)


def test_htmx_gets_the_result_alone(client):
    values = {**PRESETS[1].values, "layers": 13}

    response = get(client, f"{PAGE}?{urlencode(form_query(values))}", HX_Request="true")

    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert 'name="d_model"' not in html  # the form the learner is moving is left alone
    assert as_number(shown(response, "lab-total")) == counted_here(**values)


@pytest.mark.parametrize(
    ("query", "label"),
    [
        ({"d_model": 0}, "Width (d_model)"),
        ({"d_model": 100}, "Width (d_model)"),  # not a multiple of 64
        ({"d_model": 10**30}, "Width (d_model)"),
        ({"d_model": "7\x00"}, "Width (d_model)"),
        ({"layers": -1}, "Blocks"),
        ({"vocab": ""}, "Vocabulary"),
        ({"context": "1e9"}, "Learned positions"),
    ],
)
def test_bad_input_is_refused_naming_the_control(client, query, label):
    values = form_query(PRESETS[1].values) | query

    page = get(client, f"{PAGE}?{urlencode(values)}")
    fragment = get(client, f"{PAGE}?{urlencode(values)}", HX_Request="true")

    assert page.status_code == 400
    assert "There is a problem" in page.content.decode()
    assert "lab-total" not in page.content.decode()
    # htmx swaps only a success: the fragment says what to fix where the count was.
    assert fragment.status_code == 200
    assert f"{label}:" in fragment.content.decode()


def test_an_unknown_preset_is_not_found(client):
    assert get(client, f"{PAGE}?preset=gpt-5").status_code == 404


def test_the_page_reads_nothing_from_the_database_for_a_visitor(client):
    get(client, f"{PAGE}?preset=gpt2-small")  # the result is cached from here on
    with CaptureQueriesContext(connection) as seen:
        response = get(client, f"{PAGE}?preset=gpt2-small")

    assert response.status_code == 200
    assert len(seen.captured_queries) == 0


def test_the_pages_share_the_apis_budget(client, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "labs", "2/min")
    client.force_login(UserFactory())

    statuses = [get(client, f"{PAGE}?preset=gpt2-xl").status_code for _ in range(2)]
    statuses.append(get(client, "/api/v1/labs/parameters/").status_code)

    assert statuses == [200, 200, 429]
