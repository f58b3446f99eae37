"""The project's modules import one another without a cycle, so each can be read, and each
app understood, from the bottom up. Imports under `if TYPE_CHECKING:` do not count; imports
inside functions do."""

import graphlib

import grimp

PACKAGES = ("engine", "config", "accounts", "course", "quizzes", "reviews", "classrooms")


def test_no_module_imports_itself_round_a_cycle():
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}

    try:
        graphlib.TopologicalSorter(imports).prepare()
    except graphlib.CycleError as cycle:
        raise AssertionError(f"Import cycle: {' -> '.join(reversed(cycle.args[1]))}") from None
