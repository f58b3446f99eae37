"""The engine stays pure: no Django, no apps, no clock, no global randomness."""

import ast
import subprocess
import sys
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).parent
FORBIDDEN = (
    "django",
    "rest_framework",
    "accounts",
    "course",
    "quizzes",
    "reviews",
    "classrooms",
    "config",
)
NO_CLOCK = ("time", "random")
CLOCK_READS = (".now(", ".today(", ".utcnow(", "time.time(", "time.monotonic(")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_modules_import_no_django_no_apps_and_no_clock() -> None:
    for path in ENGINE.rglob("*.py"):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top not in FORBIDDEN + NO_CLOCK, f"{path.name} imports {name}"


def test_engine_never_reads_the_clock() -> None:
    # datetime is imported for its types and arithmetic; the time is always passed in.
    for path in ENGINE.rglob("*.py"):
        text = path.read_text()
        for call in CLOCK_READS:
            assert call not in text, f"{path.name} reads the clock with {call}"


def test_engine_never_draws_from_numpys_global_generator() -> None:
    for path in ENGINE.rglob("*.py"):
        text = path.read_text()
        for call in ("np.random.rand", "np.random.seed", "np.random.normal", "np.random.randint"):
            assert call not in text, f"{path.name} uses {call}"


def test_importing_the_engine_loads_no_django() -> None:
    code = (
        "import sys, engine, engine.labs;"
        " print(any(m.split('.')[0] == 'django' for m in sys.modules))"
    )

    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "False"


def test_the_package_is_typed() -> None:
    assert (ENGINE / "py.typed").exists()
