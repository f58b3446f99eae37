"""Grading a coding question's submission: the learner's source run in the sandbox on the
problem's cases (`config.sandbox`), each result checked against the engine's reference outside
it (`engine.coding`), so no expected value ever reaches the learner's code.

"Run examples" runs the visible examples only, and may say what was expected; "submit" runs
them and the hidden cases, whose expected values no message gives away. Results come case by
case, as the sandbox sends them (`on_result`), then as a whole with the score: the share of
cases passed.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from config import sandbox
from engine.coding import Case, Problem, check, get_problem, plan_case

if TYPE_CHECKING:
    from quizzes.models import Question

MAX_SOURCE = 20_000
"""Characters of source a submission may have."""


def hidden_seed(key: str) -> int:
    """A coding question's hidden cases' seed: from its key, the same for every learner and
    every run, so the hidden tests are the question's own."""
    digest = hashlib.blake2b(f"code:{key}".encode(), digest_size=7).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class TestResult:
    name: str
    passed: bool
    message: str
    hidden: bool
    seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "message": self.message,
            "hidden": self.hidden,
        }


@dataclass(frozen=True)
class Graded:
    tests: list[TestResult]
    setup_error: str = ""

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tests)

    @property
    def score(self) -> float:
        return self.passed / len(self.tests) if self.tests else 0.0


def _python(value: Any) -> str:
    """A value as Python a learner could paste: arrays with NumPy's own repr, short."""
    if isinstance(value, list):
        return "[" + ", ".join(_python(item) for item in value) + "]"
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=6, suppress=True, threshold=60):
            return "np." + repr(value)
    return repr(value.item() if isinstance(value, np.generic) else value)


def examples_shown(problem: Problem) -> list[dict[str, str]]:
    """The visible examples as a learner reads them: the call, and what it returns."""
    shown = []
    for case in problem.cases(0):
        if case.hidden:
            continue
        arguments = ", ".join(
            f"{name}={_python(case.arguments[name])}" for name in problem.parameters
        )
        outputs = problem.expected(case)
        returned = (
            _python(outputs[0])
            if len(outputs) == 1 and problem.outputs == ("result",)
            else "(" + ", ".join(_python(o) for o in outputs) + ")"
            if len(problem.outputs) > 1
            else _python(list(outputs))
        )
        shown.append(
            {"name": case.name, "call": f"{problem.function}({arguments})", "returns": returned}
        )
    return shown


def coding_shape(question: Question) -> dict[str, Any]:
    """A coding question as a learner starts it: the function to write, the code to start
    from, and the visible examples (the hidden cases and the model solution stay out)."""
    problem = get_problem(question.entry.code_problem)
    return {
        "function": problem.function,
        "parameters": list(problem.parameters),
        "starter": question.entry.code_starter,
        "examples": examples_shown(problem),
    }


def _outputs(message: dict[str, Any]) -> list[np.ndarray[Any, Any]] | None:
    """A case's results as sent by the harness, read as plain arrays (no pickles), or None
    when they cannot be read."""
    try:
        return [
            np.load(io.BytesIO(base64.b64decode(item["npy"])), allow_pickle=False)
            for item in message["outputs"]
        ]
    except (KeyError, TypeError, ValueError, OSError):
        return None


def _why_it_ended(outcome: sandbox.Outcome, limits: sandbox.Limits) -> str:
    if outcome.output_too_large:
        return "printed or returned too much: the output limit was reached"
    if outcome.timed_out:
        return f"timed out: the run took longer than {limits.wall_seconds:g} seconds"
    if outcome.signal in ("SIGXCPU", "SIGKILL"):
        return f"stopped at the CPU time limit ({limits.cpu_seconds} seconds)"
    if outcome.signal:
        return f"the process was ended by {outcome.signal}"
    return "the process ended before this case ran"


def grade_source(
    *,
    problem: Problem,
    seed: int,
    source: str,
    examples_only: bool,
    on_result: Callable[[TestResult], None] | None = None,
    limits: sandbox.Limits | None = None,
) -> Graded:
    """Runs `source` on the problem's cases (the examples, or all of them) in the sandbox and
    checks each result; raises `sandbox.SandboxUnavailable` when code cannot run here."""
    limits = limits or sandbox.Limits()
    cases = [c for c in problem.cases(seed) if not (examples_only and c.hidden)]
    by_name: dict[str, Case] = {case.name: case for case in cases}
    planned, files = [], {}
    for number, case in enumerate(cases):
        entry, arrays = plan_case(case, arrays_file=f"case-{number}.npz")
        entry["order"] = [name for name in problem.parameters if name in case.arguments]
        planned.append(entry)
        if arrays:
            buffer = io.BytesIO()
            np.savez(buffer, allow_pickle=False, **arrays)
            files[f"case-{number}.npz"] = buffer.getvalue()
    results: dict[str, TestResult] = {}
    setup: list[str] = []

    def received(message: dict[str, Any]) -> None:
        if message.get("setup") == "error":
            setup.append(str(message.get("message", "the code could not be loaded"))[:500])
            return
        name = message.get("case")
        if not isinstance(name, str) or name not in by_name or name in results:
            return  # not one of ours, or said before: the first word stands
        result = _checked(problem, by_name[name], message)
        results[name] = result
        if on_result is not None:
            on_result(result)

    outcome = sandbox.run(
        function=problem.function,
        cases=planned,
        source=source,
        arrays=files,
        limits=limits,
        on_message=received,
    )
    tests = []
    for case in cases:
        found = results.get(case.name)
        if found is None:
            reason = setup[0] if setup else _why_it_ended(outcome, limits)
            found = TestResult(case.name, False, reason, case.hidden)
            if on_result is not None:
                on_result(found)
        tests.append(found)
    return Graded(tests=tests, setup_error=setup[0] if setup else "")


def _checked(problem: Problem, case: Case, message: dict[str, Any]) -> TestResult:
    seconds = message.get("seconds")
    seconds = float(seconds) if isinstance(seconds, int | float) else None
    if "error" in message:
        error = str(message["error"])[:500]
        text = {
            "timed out": "timed out: the case took longer than its time",
            "out of memory": "out of memory",
        }.get(error, error)
        return TestResult(case.name, False, text, case.hidden, seconds)
    got = _outputs(message)
    if got is None:
        return TestResult(case.name, False, "its result could not be read", case.hidden, seconds)
    verdict = check(
        got,
        problem.expected(case),
        rtol=problem.rtol,
        atol=problem.atol,
        exact=problem.exact,
        names=problem.outputs,
        reveal=not case.hidden,
    )
    return TestResult(case.name, verdict.passed, verdict.message, case.hidden, seconds)
