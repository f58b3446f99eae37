"""A coding question's engine side: the function a learner writes, the reference that says what
it should return, and its test cases, made with NumPy from a seed.

A case is a name a learner can read ("hidden 3: logits up to ±1,000") and the arguments by
name: plain numbers, arrays, or lists of arrays. The visible examples are written out; the
hidden cases are drawn from `numpy.random.default_rng([seed, n])`, so a question's hidden tests
are the same every time (its seed comes from its key) and no one's answer decides them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Arguments = dict[str, Any]
Maker = Callable[[np.random.Generator, int], tuple[str, Arguments]]


@dataclass(frozen=True)
class Case:
    name: str
    arguments: Arguments
    hidden: bool


@dataclass(frozen=True)
class Problem:
    """What a learner implements. `reference` computes the expected result of `function` from
    the same arguments; `make` draws the n-th hidden case; results match when every number is
    within `atol + rtol × |expected|` (exactly, for `exact` ones)."""

    name: str
    function: str
    parameters: tuple[str, ...]
    reference: Callable[..., Any]
    examples: tuple[Arguments, ...]
    make: Maker
    hidden: int = 8
    rtol: float = 1e-6
    atol: float = 1e-9
    exact: bool = False
    outputs: tuple[str, ...] = ("result",)
    notes: Mapping[str, str] = field(default_factory=dict)

    def cases(self, seed: int) -> list[Case]:
        """The visible examples, then the hidden cases drawn from `seed`."""
        examples = [
            Case(f"example {n}", dict(arguments), hidden=False)
            for n, arguments in enumerate(self.examples, start=1)
        ]
        hidden = []
        for n in range(1, self.hidden + 1):
            what, arguments = self.make(np.random.default_rng([seed, n]), n)
            hidden.append(Case(f"hidden {n}: {what}", arguments, hidden=True))
        return examples + hidden

    def expected(self, case: Case) -> list[np.ndarray[Any, Any]]:
        """The reference's result, as a list of arrays (one per output)."""
        return as_outputs(self.reference(**copied(case.arguments)))


def as_outputs(value: Any) -> list[np.ndarray[Any, Any]]:
    """A function's result as its list of outputs: a tuple's or list's items, or the value."""
    items = value if isinstance(value, tuple | list) else (value,)
    return [np.asarray(item) for item in items]


def copied(arguments: Arguments) -> Arguments:
    """The arguments with fresh copies of their arrays, so a reference never changes a case."""
    return {
        name: [np.array(a) for a in value]
        if isinstance(value, list)
        else np.array(value)
        if isinstance(value, np.ndarray)
        else value
        for name, value in arguments.items()
    }


def plan_case(
    case: Case, *, arrays_file: str
) -> tuple[dict[str, Any], dict[str, np.ndarray[Any, Any]]]:
    """The case as the sandbox's harness reads it (its plain values, the names of its lists'
    arrays), and the arrays to store in `arrays_file`."""
    values: dict[str, Any] = {}
    lists: dict[str, list[str]] = {}
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    for name, value in case.arguments.items():
        if isinstance(value, np.ndarray):
            arrays[name] = value
        elif isinstance(value, list):
            lists[name] = [f"{name}__{i}" for i in range(len(value))]
            arrays.update(zip(lists[name], value, strict=True))
        else:
            values[name] = value.item() if isinstance(value, np.generic) else value
    planned: dict[str, Any] = {"name": case.name, "values": values}
    if lists:
        planned["lists"] = lists
    if arrays:
        planned["arrays"] = arrays_file
    return planned, arrays


def ordered(problem: Problem, case: Case) -> Sequence[str]:
    return [name for name in problem.parameters if name in case.arguments]
