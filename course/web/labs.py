"""The labs' pages: a form whose controls are the lab's inputs, and the engine's result drawn.

The URL holds the lab's state (a GET form), so a lab can be linked and the back button works.
With JavaScript, htmx sends the form as its controls move and swaps in the result only, so the
control being moved keeps its focus; without it, a button sends the form. Results come from the
same cache as the API's (`selectors.lab_result`, keyed by the inputs), and a page counts
against the same per-client budget as the API's labs.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from django import forms
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.html import format_html
from django.views.decorators.http import require_GET
from django_htmx.http import push_url

from config.throttles import throttle_page
from course import selectors
from course.web import lab_charts
from engine import labs
from engine.formatting import format_number


@dataclass(frozen=True)
class Lab:
    slug: str
    title: str
    summary: str

    @property
    def url(self) -> str:
        return reverse(f"course:lab-{self.slug}")


# In the lesson's order.
LABS = [
    Lab(
        "dot-product",
        "The dot product as a question",
        "A row of the MLP's first matrix asks a token's vector a question. Pick the question "
        "and the person, move the bias, and see who gets a yes, and why the rest of the vector "
        "does not matter.",
    ),
    Lab(
        "toy-mlp",
        "A toy MLP that stores facts",
        "Where “Michael Jordan plays basketball” can live: step through a small MLP, one sum at "
        "a time, from the token's vector to the fact it adds. Then break a bias, or give it "
        "Michael Phelps or the country Jordan, and see which fact comes out, and why.",
    ),
    Lab(
        "and-gate",
        "ReLU as an AND gate, and GELU",
        "One neuron reads two features. Slide its bias and watch the truth table: find the "
        "biases that make it fire only when both are there, then see GELU do almost the same.",
    ),
    Lab(
        "parameters",
        "The parameter counter",
        "Where a model's parameters are: set its width, depth and vocabulary, or pick GPT-2 or "
        "GPT-3, and see every part counted, with the convention each total follows.",
    ),
    Lab(
        "residual-stream",
        "The residual stream, with switches",
        "One token's vector through three blocks, each adding to it. Switch off any block's "
        "attention or MLP and watch what it wrote disappear, and see what later blocks can no "
        "longer build without it.",
    ),
    Lab(
        "near-orthogonal",
        "Near-orthogonal directions",
        "How many directions fit at almost 90° to each other: draw random ones in up to "
        "12,288 dimensions, GPT-3's width, and see the angles between them squeeze together.",
    ),
]
BY_SLUG = {lab.slug: lab for lab in LABS}


# --- the parameter counter -------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    slug: str
    label: str
    note: str
    values: dict[str, Any]


GPT2 = {"ratio": 4, "vocab": 50_257, "context": 1_024, "biases": True, "tied": True, "norms": True}
PRESETS = [
    Preset(
        "transformer-base",
        "Transformer base (2017)",
        "The 2017 paper's base sizes: d_model 512 and an MLP of 2,048, six blocks. Counted here "
        "as a decoder-only stack with a 37,000-token vocabulary and fixed (sinusoidal) "
        "positions; the paper's model also has an encoder and cross-attention, not counted.",
        {"d_model": 512, "layers": 6, **GPT2, "vocab": 37_000, "context": 0},
    ),
    Preset(
        "gpt2-small",
        "GPT-2 small",
        "768 wide, 12 blocks, vocabulary 50,257, 1,024 positions, biases, tied embeddings.",
        {"d_model": 768, "layers": 12, **GPT2},
    ),
    Preset(
        "gpt2-medium",
        "GPT-2 medium",
        "1,024 wide, 24 blocks.",
        {"d_model": 1024, "layers": 24, **GPT2},
    ),
    Preset(
        "gpt2-large",
        "GPT-2 large",
        "1,280 wide, 36 blocks.",
        {"d_model": 1280, "layers": 36, **GPT2},
    ),
    Preset(
        "gpt2-xl", "GPT-2 XL", "1,600 wide, 48 blocks.", {"d_model": 1600, "layers": 48, **GPT2}
    ),
    Preset(
        "gpt3",
        "GPT-3, the lecture's tally",
        "12,288 wide, 96 blocks, counted as the lecture counts: weight matrices only (no biases, "
        "no layer norms, no position embeddings), input and output embeddings apart (untied).",
        {
            "d_model": 12_288,
            "layers": 96,
            "ratio": 4,
            "vocab": 50_257,
            "context": 0,
            "biases": False,
            "tied": False,
            "norms": False,
        },
    ),
]
PRESET_BY_SLUG = {preset.slug: preset for preset in PRESETS}
DEFAULT_PRESET = PRESET_BY_SLUG["gpt2-small"]
D_MODEL_STEP, D_MODEL_MAX = 64, 16_384


class ParametersForm(forms.Form):
    """The counter's inputs, bounded as the API bounds them (d_model in steps of 64 here, so
    the slider moves by a whole number of heads' worth)."""

    d_model = forms.IntegerField(
        label="Width (d_model)",
        min_value=D_MODEL_STEP,
        max_value=D_MODEL_MAX,
        step_size=D_MODEL_STEP,
        widget=forms.NumberInput(attrs={"type": "range", "data-output": "d_model-value"}),
    )
    layers = forms.IntegerField(label="Blocks", min_value=1, max_value=1_000)
    ratio = forms.IntegerField(label="MLP hidden layer, times d_model", min_value=1, max_value=64)
    vocab = forms.IntegerField(label="Vocabulary", min_value=1, max_value=10_000_000)
    context = forms.IntegerField(
        label="Learned positions",
        min_value=0,
        max_value=10_000_000,
        help_text="0 when positions are not learned (sinusoidal or rotary).",
    )
    biases = forms.BooleanField(label="Biases in the linear layers", required=False)
    tied = forms.BooleanField(label="Output layer tied to the embeddings", required=False)
    norms = forms.BooleanField(label="Count the layer norms", required=False)


@dataclass(frozen=True)
class PartRow:
    name: str
    formula: str
    count: int
    per_block: bool
    total: int
    share: float

    @property
    def count_text(self) -> str:
        return format_number(self.count)

    @property
    def total_text(self) -> str:
        return format_number(self.total)

    @property
    def share_text(self) -> str:
        return lab_charts.percent(self.share)


def parameters_result(values: dict[str, Any]) -> dict[str, Any]:
    """The engine's count for the form's values, as the API gives it (and caches it)."""
    result: dict[str, Any] = selectors.lab_result(
        lab="parameters", inputs=values, compute=lambda: labs.parameters(**values).to_dict()
    )
    return result


def _parameters_context(values: dict[str, Any], p: str) -> dict[str, Any]:
    result = parameters_result(values)
    total = result["total"]
    rows = [
        PartRow(
            name=part["name"],
            formula=part["formula"],
            count=part["count"],
            per_block=part["per_block"],
            total=part["total"],
            share=part["total"] / total,
        )
        for part in result["parts"]
    ]
    return {
        "result": result,
        "total_text": format_number(total),
        "per_block_text": format_number(result["per_block"]),
        "layers": values["layers"],
        "rows": rows,
        "mlp": next(row for row in rows if row.name == "MLP"),
        "attention": next(row for row in rows if row.name == "attention"),
        "chart": lab_charts.shares(
            [(row.name, row.total) for row in rows], total=total, chart_id=f"{p}parameter-shares"
        ),
    }


@dataclass
class Shown:
    """What a lab shows for a state: its template, the template's context, and whether the
    state was valid (a page answers 400 when not)."""

    template: str
    context: dict[str, Any]
    valid: bool


# A lab's view of a state: (the state, the prefix its page's ids take, the lab page's path).
Show = Callable[[QueryDict, str, str], Shown]
_IDS = re.compile(r"e[0-9]{1,3}-")


def bound(form_class: type[forms.Form], data: QueryDict | None, p: str, **kwargs: Any) -> Any:
    """A lab's form whose ids, and the ids its sliders' live values go to, start with `p`."""
    form = form_class(data, auto_id=f"{p}id_%s", **kwargs)
    for field in form.fields.values():
        output = field.widget.attrs.get("data-output")
        if output:
            field.widget.attrs["data-output"] = p + output
    return form


STARTS: dict[str, dict[str, list[str]]] = {
    "dot-product": {
        "question": ["michael-jordan"], "person": ["michael-jordan"], "bias": ["-1"],
        "other": ["0.5"],
    },
    "toy-mlp": {"token": ["michael-jordan"], "broken": [""], "step": ["1"]},
    "and-gate": {"bias": ["0"], "scale": ["1"], "activation": ["relu"]},
    "parameters": {
        name: ["on"] if value is True else [] if value is False else [str(value)]
        for name, value in DEFAULT_PRESET.values.items()
    },
    "residual-stream": {"switches": ["1"], "on": list(labs.STREAM_PART_KEYS)},
    # No seed: a first visit to the page draws afresh; a lesson's lab draws seed 1.
    "near-orthogonal": {"dims": ["100"], "vectors": ["300"]},
}  # fmt: skip
"""Each lab's starting state: a first visit's, and what a lesson's line leaves out."""


def _with_defaults(query: QueryDict, slug: str) -> QueryDict:
    """The lab's state; its starting state when the state names none of its inputs (a first
    visit)."""
    if not any(name in query for name in STARTS[slug]):
        for name, values in STARTS[slug].items():
            query.setlist(name, values)
    return query


def _ids(request: HttpRequest) -> str:
    """The prefix of the ids of the lab asking: a lab inside a lesson says it; its own page
    has none."""
    asked = request.headers.get("X-Lab-Ids", "")
    return asked if request.htmx and _IDS.fullmatch(asked) else ""  # type: ignore[attr-defined]


def _page(request: HttpRequest, slug: str, show: Show) -> HttpResponse:
    _throttle(request)
    p = _ids(request)
    shown = show(request.GET.copy(), p, request.path)
    shown.context |= page_context(BY_SLUG[slug], p, request.path)
    return _lab_response(request, shown.template, shown.context, shown.valid)


def page_context(lab: Lab, p: str, action: str) -> dict[str, Any]:
    return {"lab": lab, "p": p, "action": action, "base": "course/labs/lab.html"}


def _throttle(request: HttpRequest) -> None:
    """A lab page counts against the API's lab budget: by user, or by address for visitors."""
    throttle_page(request, "labs" if request.user.is_authenticated else "labs-anonymous")


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "course/labs/index.html", {"labs": LABS})


@require_GET
def parameters(request: HttpRequest) -> HttpResponse:
    return _page(request, "parameters", show_parameters)


def show_parameters(query: QueryDict, p: str, action: str) -> Shown:
    preset = PRESET_BY_SLUG.get(query.get("preset", ""))
    if "preset" in query and preset is None:
        raise Http404("no such preset")
    if preset is not None or not any(name in query for name in ParametersForm.base_fields):
        chosen = preset or DEFAULT_PRESET
        form = bound(ParametersForm, None, p, initial=chosen.values)
        values: dict[str, Any] | None = dict(chosen.values)
    else:
        chosen = None
        form = bound(ParametersForm, query, p)
        values = dict(form.cleaned_data) if form.is_valid() else None
    context: dict[str, Any] = {"form": form, "presets": PRESETS, "preset": chosen}
    context["switches"] = [form["biases"], form["tied"], form["norms"]]
    shown = (values or {}).get("d_model") or form["d_model"].value()
    context["d_model_shown"] = format_number(int(shown)) if str(shown).isdigit() else ""
    if values is not None:
        context |= _parameters_context(values, p)
    # With htmx, which preset it is goes out of band beside the result.
    return Shown("course/labs/parameters.html", context, values is not None)


# --- near-orthogonal directions ---------------------------------------------------------------

DIMS_STOPS = [2, 3, 10, 30, 100, 300, 1_000, 3_000, 12_288]
ANGLE_BINS = 180


class NearOrthogonalForm(forms.Form):
    """Dimensions from a few stops (any other the URL names is added to them), and how many
    vectors, up to what the work budget allows at those dimensions."""

    dims = forms.TypedChoiceField(label="Dimensions", coerce=int, widget=forms.RadioSelect)
    vectors = forms.IntegerField(
        label="Vectors",
        min_value=2,
        max_value=labs.MAX_VECTORS,
        widget=forms.NumberInput(attrs={"type": "range", "data-output": "vectors-value"}),
    )
    seed = forms.IntegerField(
        min_value=0, max_value=2**63 - 1, required=False, widget=forms.HiddenInput
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        stops = list(DIMS_STOPS)
        asked = (self.data or {}).get("dims", "")
        if (
            asked.isdigit()
            and labs.MIN_DIMS <= int(asked) <= labs.MAX_DIMS
            and int(asked) not in stops
        ):
            stops = sorted([*stops, int(asked)])
        if asked.isdigit() and labs.MIN_DIMS <= int(asked) <= labs.MAX_DIMS:
            # The slider ends at what the budget allows here; the field still takes more
            # (from an address), and the page says it shows what fits.
            self.fields["vectors"].widget.attrs["max"] = labs.max_vectors(int(asked))
        dims = self.fields["dims"]
        assert isinstance(dims, forms.ChoiceField)
        dims.choices = [
            (n, f"{format_number(n)} (GPT-3)" if n == 12_288 else format_number(n)) for n in stops
        ]


def near_orthogonal_result(*, dims: int, vectors: int, seed: int) -> dict[str, Any]:
    """The engine's histogram for these inputs (one bin per degree), cached by them."""
    inputs = {"dims": dims, "vectors": vectors, "seed": seed, "bins": ANGLE_BINS}

    def compute() -> dict[str, Any]:
        drawn = labs.near_orthogonal(dims=dims, vectors=vectors, rng=seed, bins=ANGLE_BINS)
        return {**drawn.to_dict(), "seed": seed}

    result: dict[str, Any] = selectors.lab_result(
        lab="near-orthogonal", inputs=inputs, compute=compute
    )
    return result


def _near_orthogonal_context(dims: int, vectors: int, seed: int, p: str) -> dict[str, Any]:
    result = near_orthogonal_result(dims=dims, vectors=vectors, seed=seed)
    summary = result["summary"]
    expected = labs.angle_shares(dims, result["bin_edges"])
    pairs = result["pairs"]
    fit = labs.directions_that_fit_log10(dims, 10)
    context = {
        "result": result,
        "pairs_text": format_number(pairs),
        "observed_1": lab_charts.percent(summary["within_1_degree_of_90"]),
        "observed_10": lab_charts.percent(summary["within_10_degrees_of_90"]),
        "expected_1": lab_charts.percent(labs.share_within(dims, 1)),
        "expected_10": lab_charts.percent(labs.share_within(dims, 10)),
        "fit_10": _how_many(fit),
        "spread": f"{summary['std_degrees']:.2f}°",
        "expected_spread": f"{summary['expected_std_degrees']:.2f}°",
        "bins": [
            (f"{low:g}°–{high:g}°", format_number(count), lab_charts.percent(count / pairs))
            for low, high, count in zip(
                result["bin_edges"], result["bin_edges"][1:], result["counts"], strict=False
            )
            if count
        ],
    }
    context["bound_10_text"] = _chance(labs.perpendicular_bound_log10(dims, 10))
    context["chart"] = lab_charts.histogram(
        result["counts"],
        result["bin_edges"],
        expected,
        chart_id=f"{p}angles",
        summary=(
            f"Angles between {format_number(pairs)} pairs of random directions in "
            f"{format_number(dims)} dimensions: {context['observed_1']} between 89° and 91°, "
            f"{context['observed_10']} between 80° and 100°."
        ),
    )
    return context


def _how_many(log10: float) -> str:
    """A count given as its log10, in words: `about 10<sup>40</sup>`, or the number when it is
    small ("" when it is under 2)."""
    if log10 < math.log10(2):
        return ""
    if log10 < 6:
        return format_number(int(10**log10))
    return format_html("about 10<sup>{}</sup>", int(log10))


def _chance(log10: float) -> str:
    """A chance given as its log10 (it may be far too small for a float), in words."""
    if log10 >= 0:
        return "no limit at all (the bound is 1 or more)"
    if log10 >= -3:
        return lab_charts.percent(10**log10)
    return format_html("about 1 in 10<sup>{}</sup>", int(-log10))


@require_GET
def near_orthogonal(request: HttpRequest) -> HttpResponse:
    _throttle(request)
    query = _with_defaults(request.GET.copy(), "near-orthogonal")
    fresh = "redraw" in query or not query.get("seed")
    if fresh:
        # A fresh draw: its seed goes into the form and the address, so it can be seen again.
        query["seed"] = str(secrets.randbelow(2**63))
        query.pop("redraw", None)
        if not request.htmx:  # type: ignore[attr-defined]
            return _see_other(f"{request.path}?{query.urlencode()}")
    p = _ids(request)
    shown = show_near_orthogonal(query, p, request.path)
    shown.context |= page_context(BY_SLUG["near-orthogonal"], p, request.path)
    response = _lab_response(request, shown.template, shown.context, shown.valid)
    if request.htmx and fresh and not p:  # type: ignore[attr-defined]
        push_url(response, f"{request.path}?{query.urlencode()}")  # a lesson's address stays
    return response


def show_near_orthogonal(query: QueryDict, p: str, action: str) -> Shown:
    query = _with_defaults(query, "near-orthogonal")
    if not query.get("seed"):
        query["seed"] = "1"  # a lesson's lab draws the same each time unless it says
    form = bound(NearOrthogonalForm, query, p)
    context: dict[str, Any] = {"form": form, "stops": DIMS_STOPS}
    notice = ""
    if form.is_valid():
        dims, vectors = form.cleaned_data["dims"], form.cleaned_data["vectors"]
        most = labs.max_vectors(dims)
        if vectors > most:
            notice = (
                f"{format_number(vectors)} vectors in {format_number(dims)} dimensions is more "
                f"work than one page may do: showing {format_number(most)}, the most that fit."
            )
            vectors = most
        context |= _near_orthogonal_context(dims, vectors, form.cleaned_data["seed"], p)
        context |= {"dims": dims, "vectors": vectors, "most": most}
        context |= {"dims_text": format_number(dims), "most_text": format_number(most)}
    context["notice"] = notice
    context["vectors_shown"] = format_number(context.get("vectors") or 0) if form.is_valid() else ""
    return Shown("course/labs/near_orthogonal.html", context, form.is_valid())


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303  # a GET's answer elsewhere, to be fetched with GET
    return response


def _lab_response(
    request: HttpRequest, template: str, context: dict[str, Any], valid: bool
) -> HttpResponse:
    """The whole page, or for htmx the result alone (the form stays as it is being moved)."""
    htmx = request.htmx  # type: ignore[attr-defined]
    if htmx and not htmx.history_restore_request:
        response = render(request, f"{template}#result", context)
    else:
        response = render(request, template, context, status=200 if valid else 400)
    # The same address is a page or a fragment: a cache must not give one for the other.
    patch_vary_headers(response, ["HX-Request", "X-Lab-Ids"])
    return response


# --- ReLU as an AND gate, and GELU -----------------------------------------------------------

BIAS_LOW, BIAS_HIGH, BIAS_STEP = -5, 2, Decimal("0.05")
VERDICTS = {
    "and": "An AND gate: the neuron fires only when both features are there.",
    "or": "An OR gate: either feature alone is enough to make it fire.",
    "always": "Always on: it fires even with neither feature.",
    "never": "Never on: even both features together don't lift it above 0.",
    "other": "Neither AND nor OR.",
}


class GateForm(forms.Form):
    bias = forms.DecimalField(
        label="Bias (b)",
        min_value=BIAS_LOW,
        max_value=BIAS_HIGH,
        step_size=BIAS_STEP,
        max_digits=5,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"type": "range", "data-output": "bias-value"}),
    )
    scale = forms.DecimalField(
        label="Row length (how strongly the neuron reads each feature)",
        min_value=Decimal("0.5"),
        max_value=2,
        step_size=Decimal("0.1"),
        max_digits=3,
        decimal_places=1,
    )
    activation = forms.ChoiceField(
        label="Activation",
        choices=[("relu", "ReLU"), ("gelu", "GELU")],
        widget=forms.RadioSelect,
    )


def gate_result(*, bias: Decimal, scale: Decimal, activation: str) -> dict[str, Any]:
    """The engine's truth table for these inputs, as the API gives it (and caches it)."""
    inputs = {"bias": float(bias), "scale": float(scale), "activation": activation}
    result: dict[str, Any] = selectors.lab_result(
        lab="and-gate",
        inputs=inputs,
        compute=lambda: labs.gate(
            bias=bias, scale=scale, activation=cast(labs.Activation, activation)
        ).to_dict(),
    )
    return result


@require_GET
def and_gate(request: HttpRequest) -> HttpResponse:
    return _page(request, "and-gate", show_and_gate)


def show_and_gate(query: QueryDict, p: str, action: str) -> Shown:
    query = _with_defaults(query, "and-gate")
    form = bound(GateForm, query, p)
    context: dict[str, Any] = {"form": form}
    if form.is_valid():
        data = form.cleaned_data
        result = gate_result(**data)
        low, high = result["and_interval"]["low"], result["and_interval"]["high"]
        z_min, y_min = result["gelu_minimum"]["z"], result["gelu_minimum"]["value"]
        context |= {
            "result": result,
            "verdict": VERDICTS[result["kind"]],
            "rows": [
                {
                    **row,
                    "z_text": format_number(row["pre_activation"]),
                    "output_text": format_number(round(row["output"], 3)),
                }
                for row in result["rows"]
            ],
            "bias_text": format_number(float(data["bias"])),
            "low_text": format_number(low),
            "high_text": format_number(high),
            "minimum_text": format_number(round(y_min, 3)),
            "minimum_at_text": format_number(round(z_min, 2)),
            "line": lab_charts.number_line(
                low=low,
                high=high,
                value=float(data["bias"]),
                start=BIAS_LOW,
                end=BIAS_HIGH,
                chart_id=f"{p}and-biases",
            ),
            "curves": lab_charts.activations(
                labs.activation_curves(-5, 3, 161),
                minimum=(z_min, y_min),
                points=[(row["pre_activation"], row["output"]) for row in result["rows"]],
                activation=data["activation"],
                chart_id=f"{p}activations",
            ),
        }
    return Shown("course/labs/and_gate.html", context, form.is_valid())


# --- The dot product as a question -----------------------------------------------------------


class DotForm(forms.Form):
    question = forms.ChoiceField(
        label="The question (a row of W↑)",
        choices=[(key, label) for key, (label, _) in labs.QUESTIONS.items()],
        widget=forms.RadioSelect,
    )
    person = forms.ChoiceField(
        label="The token's vector",
        choices=[(key, name) for key, (name, _) in labs.PEOPLE.items()],
        widget=forms.RadioSelect,
    )
    bias = forms.DecimalField(
        label="Bias (b)",
        min_value=-2,
        max_value=1,
        step_size=Decimal("0.1"),
        max_digits=3,
        decimal_places=1,
        widget=forms.NumberInput(attrs={"type": "range", "data-output": "bias-value"}),
    )
    other = forms.DecimalField(
        label="Other stuff in the vector",
        min_value=0,
        max_value=3,
        step_size=Decimal("0.1"),
        max_digits=2,
        decimal_places=1,
        widget=forms.NumberInput(attrs={"type": "range", "data-output": "other-value"}),
    )


def dot_result(*, question: str, person: str, bias: Decimal, other: Decimal) -> dict[str, Any]:
    """The engine's answer for these inputs, as the API gives it (and caches it)."""
    inputs = {"question": question, "person": person, "bias": float(bias), "other": float(other)}
    result: dict[str, Any] = selectors.lab_result(
        lab="dot-question",
        inputs=inputs,
        compute=lambda: labs.dot_question(question=question, person=person, bias=bias, other=other),
    )
    return result


@require_GET
def dot_product(request: HttpRequest) -> HttpResponse:
    return _page(request, "dot-product", show_dot_product)


def show_dot_product(query: QueryDict, p: str, action: str) -> Shown:
    query = _with_defaults(query, "dot-product")
    form = bound(DotForm, query, p)
    context: dict[str, Any] = {"form": form}
    if form.is_valid():
        data = form.cleaned_data
        result = dot_result(**data)
        geometry = result["geometry"]
        context |= {
            "result": result,
            "bias_text": format_number(float(data["bias"])),
            "other_text": format_number(float(data["other"])),
            "z_text": format_number(result["pre_activation"]),
            "sum_text": format_number(result["sum"]),
            "output_text": format_number(result["output"]),
            "terms": [
                (direction, format_number(w), format_number(x), format_number(product))
                for direction, w, x, product in zip(
                    result["directions"],
                    result["question"]["row"],
                    result["person"]["vector"],
                    result["products"],
                    strict=True,
                )
            ],
            "angle_text": f"{geometry['angle_degrees']:.1f}°",
            "picture": lab_charts.vectors(chart_id=f"{p}vectors", **geometry),
        }
    return Shown("course/labs/dot_product.html", context, form.is_valid())


# --- A toy MLP that stores a fact -------------------------------------------------------------

TOY_STEPS = (
    ("The input", "x, the token's vector after attention"),
    ("The questions", "each row of W↑ dotted with x, plus its bias, gives the neuron's z"),
    ("ReLU", "a z of 0 or less gives 0, so only neurons that clearly agree pass"),
    ("The answers", "every firing neuron contributes its W↓ column times its output"),
    ("The addition", "the MLP's output goes on top of x, which keeps everything it held"),
)


class ToyMlpForm(forms.Form):
    token = forms.ChoiceField(
        label="The token",
        choices=[(key, name) for key, (name, _) in labs.TOY_TOKENS.items()],
        widget=forms.RadioSelect,
    )
    broken = forms.ChoiceField(
        label="Break a bias (set it to 0)",
        choices=[
            ("", "None"),
            *((n.name.lower(), f"{n.name} ({' + '.join(n.asks)})") for n in labs.TOY_NEURONS),
        ],
        required=False,
        widget=forms.RadioSelect,
    )
    step = forms.IntegerField(
        label="Step",
        min_value=1,
        max_value=len(TOY_STEPS),
        widget=forms.NumberInput(attrs={"type": "range", "data-output": "step-value"}),
    )


def toy_mlp_result(*, token: str, broken: str | None) -> dict[str, Any]:
    """The engine's toy MLP on this token, as the API gives it (and caches it)."""
    result: dict[str, Any] = selectors.lab_result(
        lab="toy-mlp",
        inputs={"token": token, "broken": broken},
        compute=lambda: labs.toy_mlp(token=token, broken=broken),
    )
    return result


def _amounts(directions: list[str], vector: list[float]) -> str:
    """`Michael 0.9 and Jordan 1`: the directions a vector holds, with how much."""
    held = [f"{d} {format_number(v)}" for d, v in zip(directions, vector, strict=True) if v]
    return _listed(held) if held else "nothing"


def _listed(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _toy_neuron_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    vector = result["token"]["vector"]
    for unit in result["neurons"]:
        read = [format_number(x) for x, w in zip(vector, unit["row"], strict=True) if w]
        bias = unit["bias"]
        sign = f"− {format_number(-bias)}" if bias < 0 else f"+ {format_number(bias)}"
        rows.append(
            {
                **unit,
                "asks_text": " + ".join(unit["asks"]),
                "writes_text": " + ".join(unit["writes"]),
                "bias_text": format_number(bias),
                "z_sum": f"{' + '.join(read)} {sign}",
                "z_text": format_number(unit["pre_activation"]),
                "output_text": format_number(unit["output"]),
                "adds_text": _scaled(unit["output"], unit["writes"])
                if unit["fires"]
                else "nothing",
                "features_held": sum(
                    1 for x, w in zip(vector, unit["row"], strict=True) if w and x
                ),
            }
        )
    return rows


def _scaled(amount: float, directions: list[str]) -> str:
    """`0.9 × (basketball + Bulls)`, `0.8 × swimming`."""
    written = " + ".join(directions)
    return f"{format_number(amount)} × {f'({written})' if len(directions) > 1 else written}"


def _toy_verdict(step: int, result: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    name = result["token"]["name"]
    firing = [row for row in rows if row["fires"]]
    if step == 1:
        return (
            f"{name}: the vector holds {_amounts(result['directions'], result['token']['vector'])}."
        )
    if step == 2:
        return "z: " + ", ".join(f"{row['name']} {row['z_text']}" for row in rows) + "."
    if step == 3:
        if not firing:
            return "No z is above 0: ReLU silences every neuron."
        return (
            "Above 0, so past ReLU: "
            + ", ".join(f"{row['name']} ({row['output_text']})" for row in firing)
            + "; the rest give 0."
        )
    if step == 4:
        if not firing:
            return "No neuron is active, so the MLP adds nothing."
        return "; ".join(f"{row['name']} adds {row['adds_text']}" for row in firing) + "."
    facts = result["facts"]
    if not facts:
        return "No fact comes out: the vector leaves the MLP as it came in."
    held = [f"{fact['direction']} {format_number(fact['amount'])}" for fact in facts]
    return f"Out comes {_listed(held)}."


@require_GET
def toy_mlp(request: HttpRequest) -> HttpResponse:
    return _page(request, "toy-mlp", show_toy_mlp)


def show_toy_mlp(query: QueryDict, p: str, action: str) -> Shown:
    query = _with_defaults(query, "toy-mlp")
    form = bound(ToyMlpForm, query, p)
    context: dict[str, Any] = {"form": form, "steps": TOY_STEPS}
    if form.is_valid():
        data = form.cleaned_data
        step = data["step"]
        result = toy_mlp_result(token=data["token"], broken=data["broken"] or None)
        rows = _toy_neuron_rows(result)
        directions = result["directions"]
        vector = result["token"]["vector"]
        added = result["mlp_output"] if step >= 4 else None
        state = {"token": data["token"], "broken": data["broken"]}
        context |= {
            "result": result,
            "step": step,
            "step_name": TOY_STEPS[step - 1][0],
            "rows": rows,
            "verdict": _toy_verdict(step, result, rows),
            "vector_rows": [
                (d, format_number(x), format_number(a), format_number(r))
                for d, x, a, r in zip(
                    directions, vector, result["mlp_output"], result["result"], strict=True
                )
            ],
            "next_url": (
                f"{action}?{_encoded(state | {'step': step + 1})}" if step < len(TOY_STEPS) else ""
            ),
            "previous_url": (
                f"{action}?{_encoded(state | {'step': step - 1})}" if step > 1 else ""
            ),
            "picture": lab_charts.stream(
                directions,
                vector,
                added,
                chart_id=f"{p}stream",
                summary=(
                    f"The vector of {result['token']['name']}: "
                    + _amounts(directions, result["result"] if added else vector)
                    + (", the MLP's part included." if added else ", before the MLP.")
                ),
            ),
        }
    context["step_shown"] = str(context.get("step", ""))
    return Shown("course/labs/toy_mlp.html", context, form.is_valid())


def _encoded(values: dict[str, Any]) -> str:
    query = QueryDict(mutable=True)
    query.update({name: str(value) for name, value in values.items()})
    return query.urlencode()


# --- The residual stream with switches --------------------------------------------------------

PART_LABELS = {
    part.key: f"Block {part.block}: {'attention' if part.kind == 'attention' else 'MLP'}"
    for part in labs.STREAM_PARTS
}
PART_SHORT = {
    part.key: f"{'A' if part.kind == 'attention' else 'M'}{part.block}"
    for part in labs.STREAM_PARTS
}


class StreamForm(forms.Form):
    on = forms.MultipleChoiceField(
        label="Parts switched on",
        choices=list(PART_LABELS.items()),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    switches = forms.CharField(widget=forms.HiddenInput, required=False)
    """Always sent by the form, so that every switch off is told from a first visit."""


def stream_result(*, off: list[str]) -> dict[str, Any]:
    """The engine's stream with these parts off, as the API gives it (and caches it)."""
    result: dict[str, Any] = selectors.lab_result(
        lab="residual-stream", inputs={"off": off}, compute=lambda: labs.residual_stream(off=off)
    )
    return result


def _stage_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    directions = result["directions"]
    rows: list[dict[str, Any]] = []
    for stage in result["stages"]:
        neuron = stage["neuron"]
        how = ""
        if neuron is not None:
            before = result["stages"][len(rows) - 1]["after"] if rows else result["embedding"]
            read = " + ".join(format_number(before[directions.index(d)]) for d in stage["asks"])
            how = f"ReLU({' + '.join(stage['asks'])} − 1) = ReLU({read} − 1) = "
            output = format_number(neuron["output"])
            how += output if stage["on"] else f"{output}, were it on"
        rows.append(
            {
                **stage,
                "label": PART_LABELS[stage["part"]],
                "how": how,
                "adds_text": _amounts(directions, stage["adds"]) if stage["on"] else "nothing: off",
                "after_text": _amounts(directions, stage["after"]),
            }
        )
    return rows


@require_GET
def residual_stream(request: HttpRequest) -> HttpResponse:
    return _page(request, "residual-stream", show_residual_stream)


def show_residual_stream(query: QueryDict, p: str, action: str) -> Shown:
    if "switches" not in query:  # a first visit: every part on
        query.setlist("on", query.getlist("on") or list(labs.STREAM_PART_KEYS))
        query["switches"] = "1"
    form = bound(StreamForm, query, p)
    context: dict[str, Any] = {"form": form}
    if form.is_valid():
        on = set(form.cleaned_data["on"])
        off = [key for key in labs.STREAM_PART_KEYS if key not in on]
        result = stream_result(off=off)
        directions = result["directions"]
        rows = _stage_rows(result)
        final = result["final"]
        chances = [word["chance"] for word in result["prediction"]]
        best = (
            max(result["prediction"], key=lambda word: word["chance"])
            if max(chances) - min(chances) > 1e-9
            else None
        )
        context |= {
            "result": result,
            "rows": rows,
            "final_text": _amounts(directions, final),
            "facts_missing": [d for d, v in zip(directions, final, strict=True) if not v],
            "best": best,
            "words": [
                (word["word"], format_number(word["score"]), lab_charts.percent(word["chance"]))
                for word in result["prediction"]
            ],
            "embedding_text": _amounts(directions, result["embedding"]),
            "picture": lab_charts.stream_grid(
                directions,
                [("in", result["embedding"], True)]
                + [(PART_SHORT[row["part"]], row["after"], row["on"]) for row in rows],
                chart_id=f"{p}stream",
                summary=f"The stream, part by part; it ends holding {_amounts(directions, final)}.",
            ),
        }
    return Shown("course/labs/residual_stream.html", context, form.is_valid())


SHOWS: dict[str, Show] = {
    "dot-product": show_dot_product,
    "toy-mlp": show_toy_mlp,
    "and-gate": show_and_gate,
    "parameters": show_parameters,
    "residual-stream": show_residual_stream,
    "near-orthogonal": show_near_orthogonal,
}
"""Each lab's view of a state, for its page and for a lesson that places it."""
