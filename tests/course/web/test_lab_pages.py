"""The labs' pages over the test client: the parameter counter gives the engine's and the API's
numbers, checked against a count made here from the formulas; bad input is refused by name."""

from __future__ import annotations

import math
import re
from urllib.parse import urlencode

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.throttles import SimpleRateThrottle
from course.web import lab_charts
from course.web.labs import LABS, PRESETS
from engine import labs
from engine.formatting import format_number
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


# --- near-orthogonal directions -------------------------------------------------------------

ANGLES = "/labs/near-orthogonal/"


def drawn_here(*, dims, vectors, seed):
    """The angles between every pair, drawn as the lab draws them but computed here: every
    coordinate below as many dimensions as vectors, and at or above it each vector's
    coordinates in the basis Gram-Schmidt gives them (normal, and on the diagonal the root
    of a chi-squared with one degree fewer for each vector before it)."""
    rng = np.random.default_rng(seed)
    if dims < vectors:
        points = rng.standard_normal((vectors, dims), dtype=np.float32)
    else:
        points = rng.standard_normal((vectors, vectors))
        for i in range(vectors):
            points[i, i + 1 :] = 0.0
        points[range(vectors), range(vectors)] = np.sqrt(rng.chisquare(dims - np.arange(vectors)))
    points = points.astype(np.float64)  # the same draw, the angles worked out in doubles
    points /= np.sqrt((points**2).sum(axis=1))[:, None]
    i, j = np.triu_indices(vectors, k=1)
    cosines = np.clip((points[i] * points[j]).sum(axis=1), -1, 1)
    return np.degrees(np.arccos(cosines))


def expected_here(dims, degrees):
    """The chance a random pair meets within `degrees` of 90°, by integrating the density of
    the angle, sin(θ)^(d − 2), on a fine grid (no special functions)."""
    theta = np.linspace(0, np.pi, 2_000_001)
    log_density = (dims - 2) * np.log(np.maximum(np.sin(theta), 1e-300))
    density = np.exp(log_density - log_density.max())
    near = np.abs(np.degrees(theta) - 90) <= degrees
    return float(density[near].sum() / density.sum())


def percent(share):
    return "under 0.1%" if 0 < share < 0.0005 else f"{share * 100:.1f}%"


def test_a_first_visit_is_sent_to_an_address_that_holds_its_draw(client):
    response = get(client, ANGLES)

    assert response.status_code == 303
    assert re.fullmatch(rf"{ANGLES}\?dims=100&vectors=300&seed=\d+", response["Location"])
    again = get(client, ANGLES + "?dims=100&vectors=300&redraw=1&seed=5")
    assert again.status_code == 303
    assert "redraw" not in again["Location"]
    assert not again["Location"].endswith("seed=5")  # a fresh one


@pytest.mark.parametrize(
    ("dims", "vectors", "seed"), [(3, 50, 1), (100, 300, 7), (12_288, 122, 2026)]
)
def test_the_angles_are_the_ones_drawn_and_the_api_agrees(client, dims, vectors, seed):
    response = get(client, f"{ANGLES}?dims={dims}&vectors={vectors}&seed={seed}")
    api = get(client, f"/api/v1/labs/near-orthogonal/?dims={dims}&vectors={vectors}&seed={seed}")

    assert response.status_code == 200
    angles = drawn_here(dims=dims, vectors=vectors, seed=seed)
    within_1 = float(np.mean(np.abs(angles - 90) <= 1))
    within_10 = float(np.mean(np.abs(angles - 90) <= 10))
    assert shown(response, "lab-share-1") == percent(within_1)
    assert shown(response, "lab-share-10") == percent(within_10)
    summary = api.json()["summary"]
    assert summary["within_1_degree_of_90"] == pytest.approx(within_1)
    assert summary["within_10_degrees_of_90"] == pytest.approx(within_10)
    assert shown(response, "lab-expected-1") == percent(expected_here(dims, 1))
    assert shown(response, "lab-expected-10") == percent(expected_here(dims, 10))


def test_gpt3s_width_puts_most_pairs_within_a_degree_of_90():
    assert expected_here(12_288, 1) > 0.94
    assert labs.share_within(12_288, 1) == pytest.approx(expected_here(12_288, 1), abs=1e-5)
    assert labs.share_within(3, 1) == pytest.approx(np.sin(np.radians(1)), rel=1e-9)


@pytest.mark.parametrize("dims", [2, 10, 100, 1_000, 12_288])
def test_the_bound_holds_over_the_exact_share(dims):
    for degrees in (1, 5, 10, 30):
        outside = 1 - expected_here(dims, degrees)
        assert outside <= labs.perpendicular_bound(dims, degrees) + 1e-9


def test_more_vectors_than_the_budget_allows_are_cut_to_what_fits(client):
    response = get(client, f"{ANGLES}?dims=12288&vectors=700&seed=3")

    assert response.status_code == 200
    assert shown(response, "lab-vectors") == str(labs.max_vectors(12_288))
    assert "the most that fit" in response.content.decode()
    bound = re.search(r'id="lab-bound">(.*?)</strong>', response.content.decode()).group(1)
    assert bound == "about 1 in 10<sup>80</sup>"  # 2e^(-12,288 sin²10° / 2)


def test_htmx_gets_the_result_and_the_seed_beside_it(client):
    response = get(client, f"{ANGLES}?dims=300&vectors=100&seed=11", HX_Request="true")
    fresh = get(client, f"{ANGLES}?dims=300&vectors=100&seed=11&redraw=1", HX_Request="true")

    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html
    assert re.search(r'name="seed" value="11" id="id_seed" hx-swap-oob="true"', html)
    assert re.fullmatch(rf"{ANGLES}\?dims=300&vectors=100&seed=\d+", fresh["HX-Push-Url"])
    assert not fresh["HX-Push-Url"].endswith("seed=11")


def test_any_width_the_address_names_is_offered_beside_the_stops(client):
    response = get(client, f"{ANGLES}?dims=768&vectors=50&seed=1")

    assert response.status_code == 200
    assert re.search(r'type="radio" name="dims" value="768"[^>]*checked', response.content.decode())
    assert shown(response, "lab-dims") == "768"
    assert "665 at 768 dimensions" not in response.content.decode()
    assert f"{labs.max_vectors(768)} at 768 dimensions" in response.content.decode()


@pytest.mark.parametrize(
    "query",
    [
        "dims=1&vectors=10",
        "dims=100001&vectors=10",
        "dims=10&vectors=1",
        "dims=1%000&vectors=5",
        "dims=abc&vectors=5",
        "dims=10&vectors=9999999",
        "dims=10&vectors=5&seed=-1",
    ],
)
def test_bad_angles_input_is_refused(client, query):
    response = get(
        client, f"{ANGLES}?{query}&seed=1" if "seed" not in query else f"{ANGLES}?{query}"
    )

    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()


# --- ReLU as an AND gate, and GELU ----------------------------------------------------------

GATE = "/labs/and-gate/"


def gelu_here(z):
    """z · Φ(z), with Φ from the error function."""
    return z * 0.5 * (1 + math.erf(z / math.sqrt(2)))


def table_of(response):
    rows = re.findall(
        r'<tr data-inputs="(\d)(\d)"><td>\d</td><td>\d</td><td class="num">([^<]*)</td>'
        r'<td class="num">([^<]*)</td><td>(yes|no)</td></tr>',
        response.content.decode(),
    )
    return [(int(a), int(b), z, out, fires == "yes") for a, b, z, out, fires in rows]


@pytest.mark.parametrize(
    ("bias", "kind"),
    [
        ("-2.5", "never"),
        ("-2", "never"),
        ("-1.95", "and"),
        ("-1.5", "and"),
        ("-1", "and"),
        ("-0.95", "or"),
        ("0", "or"),
        ("0.05", "always"),
    ],
)
def test_the_truth_table_follows_the_bias(client, bias, kind):
    response = get(client, f"{GATE}?bias={bias}&scale=1&activation=relu")

    assert response.status_code == 200
    b = float(bias)
    expected = [(a, c, max(a + c + b, 0) > 0) for a, c in ((0, 0), (1, 0), (0, 1), (1, 1))]
    assert [(a, c, fires) for a, c, _, _, fires in table_of(response)] == expected
    verdicts = {"and": "An AND gate", "or": "An OR gate", "always": "Always on", "never": "Never"}
    assert shown(response, "lab-verdict").startswith(verdicts[kind])
    api = get(client, f"/api/v1/labs/and-gate/?bias={bias}&scale=1").json()
    assert api["kind"] == kind


@pytest.mark.parametrize("scale", ["0.5", "1.3", "2"])
def test_the_and_interval_is_the_generators(client, scale):
    from engine.generators import get_family

    response = get(client, f"{GATE}?bias=-1&scale={scale}&activation=relu")
    variant = get_family("and_gate_bias").pose({"scale": float(scale)})

    s = float(scale)
    assert shown(response, "and-low") == format_number(-2 * s)
    assert shown(response, "and-high") == format_number(-s)
    assert (variant.answer.low, variant.answer.high) == (-2 * s, -s)
    assert (variant.answer.low_closed, variant.answer.high_closed) == (False, True)


def test_gelus_minimum_is_about_minus_0_17(client):
    response = get(client, f"{GATE}?bias=-1.5&scale=1&activation=gelu")

    # GELU'(z) = Φ(z) + z φ(z) changes sign between -0.76 and -0.74; the lowest value there.
    grid = np.linspace(-0.76, -0.74, 20_001)
    lowest = min(gelu_here(z) for z in grid)
    assert shown(response, "gelu-min") == format_number(round(lowest, 3)) == "−0.17"
    outputs = [out for _, _, _, out, _ in table_of(response)]
    zs = [-1.5, -0.5, -0.5, 0.5]
    assert outputs == [format_number(round(gelu_here(z), 3)) for z in zs]


@pytest.mark.parametrize(
    "query",
    [
        "bias=-5.01&scale=1&activation=relu",
        "bias=0.03&scale=1&activation=relu",
        "bias=x&scale=1&activation=relu",
        "bias=0&scale=0&activation=relu",
        "bias=0&scale=1&activation=tanh",
        "bias=0%00&scale=1&activation=relu",
    ],
)
def test_bad_gate_input_is_refused(client, query):
    response = get(client, f"{GATE}?{query}")

    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()


# --- the dot product as a question ----------------------------------------------------------

DOT = "/labs/dot-product/"
VECTORS = {"michael-jordan": (1, 1, 0), "michael-phelps": (1, 0, 1), "jordan-country": (0, 1, 0)}
ROWS = {"michael": (1, 0, 0, 0), "jordan": (0, 1, 0, 0), "michael-jordan": (1, 1, 0, 0)}


@pytest.mark.parametrize("person", list(VECTORS))
@pytest.mark.parametrize("question", list(ROWS))
@pytest.mark.parametrize("bias", ["-1", "0"])
def test_each_question_asked_of_each_person_gives_the_dot_product(client, question, person, bias):
    other = 0.7
    response = get(client, f"{DOT}?question={question}&person={person}&bias={bias}&other={other}")
    api = get(
        client,
        f"/api/v1/labs/dot-question/?question={question}&person={person}&bias={bias}&other={other}",
    ).json()

    vector = (*VECTORS[person], other)
    z = sum(r * x for r, x in zip(ROWS[question], vector, strict=True)) + int(bias)
    assert shown(response, "lab-z") == format_number(z) == format_number(api["pre_activation"])
    assert shown(response, "lab-output") == format_number(max(z, 0))
    assert shown(response, "lab-verdict").startswith("Yes" if z > 0 else "No")
    # The other stuff never reaches z, only the vector's length and angle.
    row_length = math.sqrt(sum(r * r for r in ROWS[question]))
    assert api["geometry"]["shadow"] == pytest.approx((z - int(bias)) / row_length)
    assert api["geometry"]["vector_length"] == pytest.approx(math.sqrt(sum(v * v for v in vector)))


def test_only_michael_jordan_answers_michael_and_jordan_until_the_bias_is_0(client):
    def fires(person, bias):
        page = get(client, f"{DOT}?question=michael-jordan&person={person}&bias={bias}&other=0.5")
        return shown(page, "lab-verdict").startswith("Yes")

    assert [fires(p, -1) for p in VECTORS] == [True, False, False]
    assert [fires(p, 0) for p in VECTORS] == [True, True, True]


@pytest.mark.parametrize(
    "query",
    [
        "question=who&person=michael-jordan&bias=-1&other=0",
        "question=michael&person=x&bias=-1&other=0",
        "question=michael&person=michael-jordan&bias=-3&other=0",
        "question=michael&person=michael-jordan&bias=-1&other=4",
        "question=michael&person=michael-jordan&bias=-1%00&other=0",
    ],
)
def test_bad_dot_input_is_refused(client, query):
    response = get(client, f"{DOT}?{query}")

    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()


def test_the_widest_space_allowed_draws_and_states_its_tiny_bound(client):
    dims = labs.MAX_DIMS
    response = get(client, f"{ANGLES}?dims={dims}&vectors={labs.max_vectors(dims)}&seed=9")

    assert response.status_code == 200
    bound = re.search(r'id="lab-bound">(.*?)</strong>', response.content.decode()).group(1)
    # 2e^(-d sin²10° / 2) at 100,000 dimensions is below any float: its power of ten still is.
    power = int(-(math.log10(2) - dims * math.sin(math.radians(10)) ** 2 / (2 * math.log(10))))
    assert bound == f"about 1 in 10<sup>{power}</sup>"
    assert labs.perpendicular_bound(dims, 10) == 0.0


# --- the toy MLP -----------------------------------------------------------------------------

TOY = "/labs/toy-mlp/"


def cells(response, table_id):
    """Each row of a table as its cells' text, tags dropped."""
    html = response.content.decode()
    table = html[html.index(f'id="{table_id}"') :]
    table = table[: table.index("</table>")]
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    ][1:]


@pytest.mark.parametrize("token", list(labs.TOY_TOKENS))
@pytest.mark.parametrize("broken", ["", "n1"])
def test_the_last_step_shows_the_engines_and_the_apis_numbers(client, token, broken):
    response = get(client, f"{TOY}?token={token}&broken={broken}&step=5")
    api = get(client, f"/api/v1/labs/toy-mlp/?token={token}&broken={broken}").json()

    assert response.status_code == 200
    assert api == labs.toy_mlp(token=token, broken=broken or None)
    neurons = cells(response, "toy-neurons")
    assert [row[0].split()[0] for row in neurons] == ["N1", "N2", "N3"]
    for row, neuron in zip(neurons, api["neurons"], strict=True):
        assert row[3].endswith(f"= {format_number(neuron['pre_activation'])}")
        assert row[4] == format_number(neuron["output"])
    vector = cells(response, "toy-vector")
    assert [row[0] for row in vector] == api["directions"]
    assert [row[3] for row in vector] == [format_number(v) for v in api["result"]]
    verdict = shown(response, "lab-verdict")
    if api["facts"]:
        for fact in api["facts"]:
            assert f"{fact['direction']} {format_number(fact['amount'])}" in verdict
    else:
        assert verdict.startswith("No fact comes out")


def test_the_steps_show_one_more_column_each(client):
    def headings(step):
        response = get(client, f"{TOY}?token=michael-jordan&broken=&step={step}")
        html = response.content.decode()
        return re.findall(r'<th scope="col"[^>]*>([^<]*)<', html), shown(response, "lab-verdict")

    first, verdict = headings(1)
    assert "z = row · x + b" not in first
    assert verdict == "Michael Jordan: the vector holds Michael 0.9 and Jordan 1."
    second, verdict = headings(2)
    assert "z = row · x + b" in second
    assert "ReLU(z)" not in second
    assert verdict == "z: N1 0.9, N2 −0.1, N3 0."
    third, verdict = headings(3)
    assert "ReLU(z)" in third
    assert verdict == "Above 0, so past ReLU: N1 (0.9); the rest give 0."
    fourth, verdict = headings(4)
    assert "MLP adds" in fourth
    assert "x + MLP(x)" not in fourth
    assert verdict == "N1 adds 0.9 × (basketball + Bulls)."
    fifth, verdict = headings(5)
    assert "x + MLP(x)" in fifth
    assert verdict == "Out comes basketball 0.9 and Bulls 0.9."


def test_a_first_visit_starts_at_step_1_and_links_the_next_without_javascript(client):
    response = get(client, TOY)
    html = response.content.decode()

    assert shown(response, "lab-step") == "Step 1 of 5: The input"
    assert 'href="/labs/toy-mlp/?token=michael-jordan&amp;broken=&amp;step=2"' in html
    last = get(client, f"{TOY}?token=jordan&broken=&step=5").content.decode()
    assert 'id="toy-next"' not in last
    assert "step=4" in last


def test_the_why_says_which_neuron_answers_and_why_the_rest_do_not(client):
    country = get(client, f"{TOY}?token=jordan-country&broken=&step=5").content.decode()
    why = re.sub(r"<[^>]+>", "", country[country.index('id="toy-why"') :].split("</ul>")[0])

    assert "N3 holds “Jordan (country) → Middle East”" in why
    assert "so it adds 0.7 × Middle East" in why
    # N1 reads Jordan but not Michael: z = 0 + 1 − 1 = 0.
    assert "z = 0 + 1 − 1 = 0, not above 0: one of its features alone is not enough" in why
    assert "neither of its features is there" in why  # N2: Michael + Phelps


def test_htmx_gets_the_toy_mlps_result_alone(client):
    response = get(client, f"{TOY}?token=michael-phelps&broken=n1&step=5", HX_Request="true")
    html = response.content.decode()

    assert response.status_code == 200
    assert "<html" not in html
    assert 'id="lab-verdict"' in html
    assert "Vary" in response
    assert "HX-Request" in response["Vary"]
    assert shown(response, "lab-verdict") == "Out comes basketball 1, Bulls 1 and swimming 0.8."


@pytest.mark.parametrize(
    "query",
    [
        "token=lebron&broken=&step=1",
        "token=jordan&broken=n7&step=1",
        "token=jordan&broken=&step=6",
        "token=jordan&broken=&step=0",
        "token=jordan&broken=&step=1%00",
        "token=jordan%00&broken=&step=1",
    ],
)
def test_bad_toy_mlp_input_is_refused(client, query):
    response = get(client, f"{TOY}?{query}")

    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()


def test_the_toy_mlp_page_reads_nothing_from_the_database_for_a_visitor(client):
    get(client, TOY)  # warms the cache of the first state
    with CaptureQueriesContext(connection) as queries:
        response = get(client, f"{TOY}?token=jordan&broken=n1&step=5")

    assert response.status_code == 200
    assert len(queries) == 0


# --- the residual stream -----------------------------------------------------------------------

STREAM = "/labs/residual-stream/"


def switched_on(*parts):
    return STREAM + "?" + urlencode([("switches", "1"), *(("on", part) for part in parts)])


def test_a_first_visit_has_every_part_on_and_the_api_agrees(client):
    response = get(client, STREAM)
    api = get(client, "/api/v1/labs/residual-stream/").json()

    assert response.status_code == 200
    assert shown(response, "lab-verdict") == (
        "It ends holding Michael 1, Jordan 1, basketball 1, Bulls 1 and NBA 1."
    )
    assert api == labs.residual_stream(off=[])
    html = response.content.decode()
    assert html.count('type="checkbox" name="on"') == 6
    assert html.count("checked") == 6


@pytest.mark.parametrize("off", [["attention-1"], ["mlp-2"], list(labs.STREAM_PART_KEYS)])
def test_switching_parts_off_shows_the_engines_stream(client, off):
    on = [part for part in labs.STREAM_PART_KEYS if part not in off]
    response = get(client, switched_on(*on))
    result = labs.residual_stream(off=off)

    held = [
        f"{d} {format_number(v)}"
        for d, v in zip(result["directions"], result["final"], strict=True)
        if v
    ]
    assert ", ".join(held[:-1]) in shown(response, "lab-verdict")
    rows = cells(response, "stream-parts")
    assert [row[0] for row in rows[1:]] == [
        f"Block {k[-1]}: {'attention' if k.startswith('a') else 'MLP'}"
        for k in labs.STREAM_PART_KEYS
    ]
    for row, key in zip(rows[1:], labs.STREAM_PART_KEYS, strict=True):
        assert (row[2] == "nothing: off") == (key in off)
    words = cells(response, "stream-words")
    assert [row[2] for row in words] == [
        lab_charts.percent(word["chance"]) for word in result["prediction"]
    ]


def test_every_part_off_is_not_taken_for_a_first_visit(client):
    response = get(client, switched_on())

    assert shown(response, "lab-verdict") == "It ends holding Jordan 1."
    assert "checked" not in response.content.decode()


def test_the_mlp_neurons_show_their_sums(client):
    response = get(client, switched_on("mlp-1", "mlp-2", "mlp-3"))  # no Michael copied in
    rows = {row[0]: row for row in cells(response, "stream-parts")}

    assert rows["Block 1: MLP"][1].endswith("ReLU(Michael + Jordan − 1) = ReLU(0 + 1 − 1) = 0")
    assert rows["Block 3: MLP"][3] == "Jordan 1"


@pytest.mark.parametrize(
    "query", ["switches=1&on=mlp-9", "switches=1&on=mlp-1%00", "switches=1&on=" + "m" * 3000]
)
def test_bad_switches_are_refused(client, query):
    response = get(client, f"{STREAM}?{query}")

    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.slug)
def test_every_lab_page_is_listed_and_shows_no_template_syntax(client, lab):
    listing = get(client, "/labs/").content.decode()
    response = client.get(lab.url, secure=True, follow=True)  # near-orthogonal adds its seed
    html = response.content.decode()

    assert f'href="{lab.url}"' in listing
    assert response.status_code == 200
    assert "{#" not in html
    assert "{%" not in html
    assert 'hx-history="false"' in html
