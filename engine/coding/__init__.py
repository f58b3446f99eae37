"""Coding questions' engine side: the problems (a reference solution and its test cases, made
with NumPy from a seed) and the check of a learner's result against the reference's. Running
the learner's code is not done here: `config.sandbox` does it, contained."""

from engine.coding.checking import Checked, check
from engine.coding.library import PROBLEMS
from engine.coding.problem import Case, Problem, as_outputs, plan_case


def get_problem(name: str) -> Problem:
    try:
        return PROBLEMS[name]
    except KeyError:
        known = ", ".join(sorted(PROBLEMS))
        raise KeyError(f"no coding problem {name!r}; the known ones are {known}") from None


__all__ = [
    "PROBLEMS",
    "Case",
    "Checked",
    "Problem",
    "as_outputs",
    "check",
    "get_problem",
    "plan_case",
]
