"""The labs' pages: a form whose controls are the lab's inputs, and the engine's result drawn.

The URL holds the lab's state (a GET form), so a lab can be linked and the back button works.
With JavaScript, htmx sends the form as its controls move and swaps in the result only, so the
control being moved keeps its focus; without it, a button sends the form. Results come from the
same cache as the API's (`selectors.lab_result`, keyed by the inputs), and a page counts
against the same per-client budget as the API's labs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

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


LABS = [
    Lab(
        "parameters",
        "The parameter counter",
        "Where a model's parameters are: set its width, depth and vocabulary, or pick GPT-2 or "
        "GPT-3, and see every part counted, with the convention each total follows.",
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
    return selectors.lab_result(
        lab="parameters", inputs=values, compute=lambda: labs.parameters(**values).to_dict()
    )


def _parameters_context(values: dict[str, Any]) -> dict[str, Any]:
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
            [(row.name, row.total) for row in rows], total=total, chart_id="parameter-shares"
        ),
    }


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "course/labs/index.html", {"labs": LABS})


@require_GET
def parameters(request: HttpRequest) -> HttpResponse:
    lab = BY_SLUG["parameters"]
    throttle_page(request, "labs" if request.user.is_authenticated else "labs-anonymous")
    query = request.GET
    preset = PRESET_BY_SLUG.get(query.get("preset", ""))
    if "preset" in query and preset is None:
        raise Http404("no such preset")
    if preset is not None or not any(name in query for name in ParametersForm.base_fields):
        chosen = preset or DEFAULT_PRESET
        form = ParametersForm(initial=chosen.values)
        values: dict[str, Any] | None = dict(chosen.values)
    else:
        chosen = None
        form = ParametersForm(query)
        values = dict(form.cleaned_data) if form.is_valid() else None
    context: dict[str, Any] = {"lab": lab, "form": form, "presets": PRESETS, "preset": chosen}
    context["switches"] = [form["biases"], form["tied"], form["norms"]]
    shown = (values or {}).get("d_model") or form["d_model"].value()
    context["d_model_shown"] = format_number(int(shown)) if str(shown).isdigit() else ""
    if values is not None:
        context |= _parameters_context(values)
    htmx = request.htmx  # type: ignore[attr-defined]
    if htmx and not htmx.history_restore_request:
        # The form stays as the learner is moving it; only the result (and which preset it
        # is, out of band) is sent.
        response = render(request, "course/labs/parameters.html#result", context)
    else:
        status = 200 if values is not None else 400
        response = render(request, "course/labs/parameters.html", context, status=status)
    # The same address is a page or a fragment: a cache must not give one for the other.
    patch_vary_headers(response, ["HX-Request"])
    return response
