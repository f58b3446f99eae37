"""A coding submission graded as the worker grades it: run in the sandbox on the problem's
cases, each result checked outside against the engine's reference. A correct solution passes
every hidden case; a subtly wrong one fails with a message naming the case and what is wrong,
and never the hidden expected value."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from config import sandbox
from engine.coding import get_problem
from quizzes.coding import grade_source

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
)

SEED = 20261206

SOFTMAX = """
import numpy as np

def softmax(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)
"""

SOFTMAX_UNSHIFTED = """
import numpy as np

def softmax(x):
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)
"""

ATTENTION = """
import numpy as np

def causal_attention(q, k, v):
    t, d = q.shape[-2], q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    future = np.triu(np.ones((t, t), dtype=bool), 1)
    scores = np.where(future, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ v
"""

MHA = """
import numpy as np

def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads):
    b, t, d = x.shape
    h = d // n_heads
    def heads(m):
        return m.reshape(b, t, n_heads, h).transpose(0, 2, 1, 3)
    q, k, v = heads(x @ w_q), heads(x @ w_k), heads(x @ w_v)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(h)
    s = np.where(np.triu(np.ones((t, t), dtype=bool), 1), -np.inf, s)
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    out = (s / s.sum(axis=-1, keepdims=True)) @ v
    return out.transpose(0, 2, 1, 3).reshape(b, t, d) @ w_o
"""


def graded(problem: str, source: str, *, examples_only: bool = False):
    return grade_source(
        problem=get_problem(problem),
        seed=SEED,
        source=textwrap.dedent(source),
        examples_only=examples_only,
    )


def failures(result) -> dict[str, str]:
    return {t.name: t.message for t in result.tests if not t.passed}


def test_a_correct_softmax_passes_every_case():
    result = graded("softmax", SOFTMAX)

    assert failures(result) == {}
    assert result.score == 1.0
    assert len(result.tests) == 2 + get_problem("softmax").hidden
    assert sum(t.hidden for t in result.tests) == get_problem("softmax").hidden


def test_a_softmax_without_the_maximum_subtracted_fails_on_large_logits():
    result = graded("softmax", SOFTMAX_UNSHIFTED)

    failed = failures(result)
    assert failed, "the overflow must show"
    assert all("±" in name for name in failed), failed
    name, message = next(iter(failed.items()))
    assert name.startswith("hidden ")
    assert "NaN" in message or "infinity" in message
    assert "overflow? subtract the maximum first" in message
    assert 0 < result.score < 1


def test_a_mask_on_the_wrong_side_fails_and_says_where():
    right = graded("causal_attention", ATTENTION)
    wrong = graded(
        "causal_attention", ATTENTION.replace("np.triu(", "np.tril(").replace(", 1)", ", -1)")
    )

    assert failures(right) == {}
    failed = failures(wrong)
    # One token has nothing to mask either way; every longer case fails.
    assert failed
    assert all("1 tokens" not in name for name in failed)
    message = next(m for name, m in failed.items() if name.startswith("hidden"))
    assert "off; the largest error is" in message
    assert " at [" in message
    assert "expected" not in message  # a hidden case's expected value is not given


def test_an_off_by_one_head_split_fails_the_cases_with_several_heads():
    right = graded("multi_head_attention", MHA)
    wrong = graded("multi_head_attention", MHA.replace("h = d // n_heads", "h = d // n_heads + 1"))

    assert failures(right) == {}
    failed = failures(wrong)
    assert failed
    assert any("heads of" in name for name in failed)
    assert all(not t.passed for t in wrong.tests)  # the reshape cannot fit: every case says so
    assert any("cannot reshape" in m for m in failed.values()), failed


def test_a_visible_example_may_say_what_was_expected_and_a_hidden_one_never():
    off = SOFTMAX.replace("return e /", "return 1.01 * e /")

    result = graded("softmax", off)

    by_name = {t.name: t for t in result.tests}
    assert "expected" in by_name["example 1"].message
    assert all("expected" not in t.message for t in result.tests if t.hidden)


def test_running_the_examples_runs_no_hidden_case():
    result = graded("softmax", SOFTMAX, examples_only=True)

    assert [t.name for t in result.tests] == ["example 1", "example 2"]


def test_several_outputs_and_lists_are_checked_each_by_name():
    kv = """
    import numpy as np
    def kv_cache_step(k_cache, v_cache, q, k_new, v_new):
        k = np.vstack([k_cache, k_new])
        v = np.vstack([v_cache, v_new])
        s = k @ q / np.sqrt(q.shape[0])
        w = np.exp(s - s.max())
        return k, v, (w / w.sum()) @ v
    """
    unscaled = kv.replace(" / np.sqrt(q.shape[0])", "")
    clip = """
    import numpy as np
    def clip_by_global_norm(grads, max_norm):
        total = np.sqrt(sum(float((g * g).sum()) for g in grads))
        scale = min(1.0, max_norm / (total + 1e-6))
        return [g * scale for g in grads]
    """

    assert failures(graded("kv_cache_step", kv)) == {}
    failed = failures(graded("kv_cache_step", unscaled))
    assert failed
    assert all(m.startswith("output: ") for m in failed.values()), failed
    assert failures(graded("clip_by_global_norm", clip)) == {}


def test_an_exact_count_is_checked_exactly():
    count = """
    def count_gpt_parameters(vocab, d_model, layers, context, ratio, tied):
        d = d_model
        block = 4 * d * d + 4 * d + 2 * ratio * d * d + ratio * d + d + 4 * d
        total = vocab * d + context * d + layers * block + 2 * d
        return total if tied else total + vocab * d
    """
    untied_forgotten = count.replace("return total if tied else total + vocab * d", "return total")

    assert failures(graded("count_parameters", count)) == {}
    failed = failures(graded("count_parameters", untied_forgotten))
    assert failed
    assert all("the value differ" in m and "you returned" in m for m in failed.values())


def test_code_that_does_not_load_or_define_the_function_fails_every_case_saying_why():
    broken = graded("softmax", "def softmax(x):\n    return x +\n")
    misnamed = graded("softmax", "def soft_max(x):\n    return x\n")

    assert {t.message for t in broken.tests} == {broken.setup_error}
    assert broken.setup_error.startswith("SyntaxError")
    assert {t.message for t in misnamed.tests} == {"NameError: define a function named softmax"}


def test_an_endless_submission_is_cut_off_and_each_case_says_so():
    endless = "def softmax(x):\n    while True:\n        pass\n"
    quick = sandbox.Limits(cpu_seconds=2, wall_seconds=3, case_seconds=0.3)

    result = grade_source(
        problem=get_problem("softmax"), seed=SEED, source=endless, examples_only=False, limits=quick
    )

    messages = {t.message for t in result.tests}
    assert messages <= {
        "timed out: the case took longer than its time",
        "timed out: the run took longer than 3 seconds",
        "stopped at the CPU time limit (2 seconds)",
    }, messages
    assert result.score == 0.0
