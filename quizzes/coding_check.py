"""An author's check of a file of coding questions: each question's rules (`bank_rules`), then
its model solution run in the sandbox against the engine's problem (every case must pass) and
its starter too (which must not).

    .venv/bin/python -m quizzes.coding_check content/interview/questions/coding.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def main(paths: list[str]) -> int:
    from engine.coding import get_problem
    from quizzes import bank_rules
    from quizzes.coding import grade_source, hidden_seed

    failed = 0
    for name in paths:
        entries = yaml.safe_load(Path(name).read_text(encoding="utf-8")) or []
        for entry in entries:
            if not isinstance(entry, dict) or "code" not in entry:
                continue
            key = entry.get("key", "?")
            errors = bank_rules.question_errors(entry)
            for field, message in errors.items():
                print(f"{name}: {key}: {field}: {message}")
                failed += 1
            if errors:
                continue
            problem = get_problem(entry["code"]["problem"])
            solution = grade_source(
                problem=problem,
                seed=hidden_seed(key),
                source=entry["code"]["solution"],
                examples_only=False,
            )
            for test in solution.tests:
                if not test.passed:
                    print(f"{name}: {key}: solution fails {test.name}: {test.message}")
                    failed += 1
            starter = grade_source(
                problem=problem, seed=1, source=entry["code"]["starter"], examples_only=True
            )
            if starter.passed:
                print(f"{name}: {key}: the starter passes an example; it should be a stub")
                failed += 1
            print(f"{name}: {key}: {solution.passed} of {len(solution.tests)} cases pass")
    print("no problems" if not failed else f"{failed} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    import django

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    sys.exit(main(sys.argv[1:]))
