"""Coding problems: reproducible cases, references that give what plain arithmetic gives on the
visible examples, and a check whose messages help without giving hidden values away."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.coding import PROBLEMS, check, get_problem
from engine.coding.problem import as_outputs

NAMES = sorted(PROBLEMS)


def test_there_are_at_least_twenty_problems_each_with_examples_and_hidden_cases():
    assert len(PROBLEMS) >= 20
    for problem in PROBLEMS.values():
        cases = problem.cases(7)
        assert sum(not c.hidden for c in cases) >= 1, problem.name
        assert sum(c.hidden for c in cases) >= 8, problem.name
        assert len({c.name for c in cases}) == len(cases), problem.name
        for case in cases:
            assert set(case.arguments) == set(problem.parameters), (problem.name, case.name)


@pytest.mark.parametrize("name", NAMES)
def test_a_seed_always_gives_the_same_cases_and_another_seed_others(name):
    problem = get_problem(name)

    def plain(value):
        return (
            [a.tolist() for a in value] if isinstance(value, list) else np.asarray(value).tolist()
        )

    def flat(seed):
        return [
            (c.name, {k: plain(v) for k, v in c.arguments.items()}) for c in problem.cases(seed)
        ]

    assert flat(11) == flat(11)
    if name not in ("causal_mask", "sinusoidal_positions"):  # sizes only: nothing to draw
        assert flat(11) != flat(12)


@pytest.mark.parametrize("name", NAMES)
def test_every_reference_answers_every_case_with_numbers(name):
    problem = get_problem(name)
    for case in problem.cases(3):
        outputs = problem.expected(case)
        assert len(outputs) >= 1
        for out in outputs:
            assert out.dtype.kind in "biuf", (name, case.name)
            finite = (
                np.isfinite(out) | np.isneginf(out) if name == "causal_mask" else np.isfinite(out)
            )
            assert finite.all(), (name, case.name)


def example(name, n=0):
    problem = get_problem(name)
    case = problem.cases(0)[n]
    return [o.tolist() for o in as_outputs(problem.reference(**case.arguments))]


def close(a, b, tol=1e-9):
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), atol=tol, rtol=tol)


def test_the_references_give_what_plain_arithmetic_gives_on_the_examples():
    e = [math.exp(v) for v in (1, 2, 3)]
    assert close(example("softmax")[0], [v / sum(e) for v in e])
    assert close(
        example("softmax", 1)[0],
        [[0.5, 0.5], [math.e / (math.e + 1 / math.e), (1 / math.e) / (math.e + 1 / math.e)]],
    )
    assert close(example("log_softmax")[0], [math.log(v / sum(e)) for v in e])
    # Cross-entropy: -log softmax of the target, averaged: rows [2, 0, 0] → 0, [0, 0, 0] → 2.
    first = -math.log(math.exp(2) / (math.exp(2) + 2))
    assert close(example("cross_entropy")[0], (first + math.log(3)) / 2)
    # Smoothing 0.1 over 3: the target's weight 0.9 + 0.1/3, the others 0.1/3 each.
    logp = [2 - math.log(math.exp(2) + 2), -math.log(math.exp(2) + 2), -math.log(math.exp(2) + 2)]
    weights = [0.9 + 0.1 / 3, 0.1 / 3, 0.1 / 3]
    assert close(
        example("label_smoothing")[0], -sum(w * p for w, p in zip(weights, logp, strict=True))
    )
    assert close(example("perplexity")[0], math.sqrt(8))  # probabilities 1/2, 1/4, 1/2, 1/4
    # Layer norm of 1..4: mean 2.5, variance 1.25.
    assert close(
        example("layer_norm")[0], [(v - 2.5) / math.sqrt(1.25 + 1e-5) for v in (1, 2, 3, 4)]
    )
    assert close(example("rms_norm")[0], [3 / math.sqrt(12.5), 4 / math.sqrt(12.5)])
    c = math.sqrt(2 / math.pi)
    assert close(
        example("gelu")[0],
        [0.5 * v * (1 + math.tanh(c * (v + 0.044715 * v**3))) for v in (-1, 0, 1, 2)],
    )
    gelu1, gelu_minus1 = 0.5 * (1 + math.tanh(c * 1.044715)), -0.5 * (1 + math.tanh(-c * 1.044715))
    assert close(example("mlp_block")[0], [gelu1 + 0.5, gelu_minus1 + 0.5])
    assert example("causal_mask")[0] == [[0, -math.inf, -math.inf], [0, 0, -math.inf], [0, 0, 0]]
    # Token 2 attends to both: scores 0 and 1/√2.
    w = math.exp(1 / math.sqrt(2)) / (1 + math.exp(1 / math.sqrt(2)))
    assert close(
        example("causal_attention")[0], [[1, 2], [(1 - w) * 1 + w * 3, (1 - w) * 2 + w * 4]]
    )
    # The cache step: q = 0, so the two cached-and-new tokens are averaged.
    k, v, out = example("kv_cache_step")
    assert (k, v) == ([[1, 0], [0, 1]], [[2, 0], [0, 2]])
    assert close(out, [1, 1])
    assert close(
        example("sinusoidal_positions")[0],
        [[0, 1, 0, 1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]],
    )
    assert close(example("rotary")[0], [[1, 0], [math.cos(1), math.sin(1)]])
    assert example("embed_tokens")[0] == [[[11, 10], [20, 21]]]
    assert example("greedy_next")[0] == [1, 0]
    assert close(
        example("temperature")[0], [1 / (1 + math.exp(2)), math.exp(2) / (1 + math.exp(2))]
    )
    top2 = [
        0,
        math.exp(3) / (math.exp(3) + math.exp(2)),
        math.exp(2) / (math.exp(3) + math.exp(2)),
        0,
    ]
    assert close(example("top_k")[0], top2)
    assert close(example("top_p")[0], [0.5 / 0.8, 0.3 / 0.8, 0, 0])
    # AdamW's first step moves by lr whatever the gradient's size (m̂ / √v̂ = ±1).
    param, m, v = example("adamw_step")
    assert close(m, 0.05)
    assert close(v, 0.00025)
    assert close(param, 1 - 0.1 * 0.5 / (0.5 + 1e-8))
    assert close(example("clip_by_global_norm"), [[3 / (5 + 1e-6)], [4 / (5 + 1e-6)]])
    assert close(example("warmup_cosine")[0], [0, 0.5, 1, 0.5, 0])
    assert example("count_parameters")[0] == 124_439_808  # GPT-2 small, tied


def test_the_hidden_logits_overflow_an_unshifted_exponential():
    problem = get_problem("softmax")
    hidden = [c for c in problem.cases(0) if c.hidden]
    with np.errstate(over="ignore"):
        overflowing = [c.name for c in hidden if not np.isfinite(np.exp(c.arguments["x"])).all()]

    assert len(overflowing) >= 2, overflowing


def test_a_check_names_the_first_thing_wrong():
    right = [np.array([[0.5, 0.25], [1.0, 2.0]])]

    def said(got, **kw):
        return check(got, right, rtol=1e-6, atol=1e-9, **kw).message

    assert check([right[0].copy()], right, rtol=1e-6, atol=1e-9).passed
    assert said([right[0].T[:1]]) == "wrong shape: (1, 2) where (2, 2) is expected"
    assert said([np.array([[0.5, np.nan], [1.0, 2.0]])]) == (
        "NaN at [0, 1] (overflow? subtract the maximum first)"
    )
    assert said([np.array([[0.5, 0.25], [1.0, 2.5]])]) == (
        "1 of 4 values off; the largest error is 0.5 at [1, 1]"
    )
    assert said([np.array([[0.5, 0.25], [1.0, 2.5]])], reveal=True).endswith(
        ", where 2 is expected"
    )
    assert said([np.array(["a", "b"])]) == "returned text, not numbers"
    assert said([right[0], right[0]]) == "returned 2 values; expected one"


def test_several_outputs_are_named_and_an_exact_result_is_exact():
    expected = [np.zeros(2), np.ones(2), np.array(7)]
    got = [np.zeros(2), np.ones(3), np.array(7)]

    message = check(got, expected, rtol=0, atol=0, names=("k", "v", "out")).message
    exact = check([np.array(8)], [np.array(7)], rtol=1, atol=1, exact=True).message

    assert message == "v: wrong shape: (3,) where (2,) is expected"
    assert exact == "the value differ; at the value you returned 8"
