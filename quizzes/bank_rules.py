"""The interview bank's rules for one question, in plain Python (no database): the shape of each
field, and that every figure the text works out is what its arithmetic gives. `load_content`
applies them to every file; authors run them on one file as they write:

    python -m quizzes.bank_rules content/interview/questions/attention.yaml
"""

from __future__ import annotations

import ast
import itertools
import math
import operator
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

LEVELS = ("junior", "mid", "senior")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
LESSON_REF = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*/[a-z0-9]+(-[a-z0-9]+)*$")

# (field, lowest, highest) in words
WORDS = {"model_answer": (40, 160), "notes": (80, 450)}
# (field, fewest, most) items
ITEMS = {
    "key_points": (3, 6),
    "wrong_turns": (1, 4),
    "follow_ups": (1, 4),
    "related": (0, 5),
    "sources": (1, 8),
}
ITEM_CHARS = {"key_points": 160, "wrong_turns": 300, "follow_ups": 300, "sources": 400}
REQUIRED = ("key", "level", "question", "model_answer", "notes", "key_points", "wrong_turns")
REQUIRED += ("follow_ups", "sources")
OPTIONAL = ("related", "lesson", "diagram", "givens", "figures")
NUMERIC = ("answer", "tolerance", "unit", "mistakes", "solution_steps", "generator")
CODE_FIELDS = ("problem", "starter", "solution")
"""A coding question's `code`: the engine's problem it is graded by, the code the learner starts
from (the function's signature and a stub), and the model solution shown after a submission."""
CODE_CHARS = 20_000
CHECKED_TEXT = ("question", "model_answer", "notes")

# --- arithmetic ---------------------------------------------------------------------------------

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "sqrt": math.sqrt,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "exp": math.exp,
    "ceil": math.ceil,
    "floor": math.floor,
    "min": min,
    "max": max,
    "tanh": math.tanh,
    "cos": math.cos,
    "sin": math.sin,
    "erf": math.erf,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}


class FigureError(ValueError):
    pass


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression: numbers, + - * / ** and parentheses, and the
    functions above. Anything else (a name, an attribute, a call of something else) is refused,
    so a content file can never run code."""
    try:
        # 4,722,432 may be written with its thousands commas; a comma between arguments stays.
        tree = ast.parse(re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "_", expression), mode="eval")
    except SyntaxError as error:
        raise FigureError(f"'{expression}' is not arithmetic: {error.msg}") from None

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.Name) and node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 400:
                raise FigureError(f"'{expression}': exponent {right} is too large")
            return _BINARY[type(node.op)](left, right)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS
            and not node.keywords
        ):
            return _FUNCTIONS[node.func.id](*(walk(a) for a in node.args))
        raise FigureError(
            f"'{expression}': only numbers, + - * / ** ( ) and {', '.join(_FUNCTIONS)}"
        )

    try:
        return float(walk(tree))
    except (ArithmeticError, ValueError, TypeError) as error:
        if isinstance(error, FigureError):
            raise
        raise FigureError(f"'{expression}' cannot be computed: {error}") from None


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SHOWN = re.compile(
    r"""^[~≈<>]?\s*(?P<sign>[-−])?(?P<digits>\d[\d,\u202f\u2009]*(?:\.\d+)?)
        (?:\s*(?:[×x·]\s*10(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)|\^(?P<caret>-?\d+))|e(?P<exp>[-+]?\d+))?
        \s*(?P<rest>.*)$""",
    re.X,
)


def shown_number(shown: str) -> tuple[float, float]:
    """What a figure as written says: its value and the half-width its written digits allow
    ("1.4" is 1.4 ± 0.05; "4,722,432" is exact to ± 0.5; "1.4 × 10²³" is ± 0.05 × 10²³)."""
    match = _SHOWN.match(shown.strip())
    if match is None:
        raise FigureError(f"'{shown}' does not start with a number")
    digits = re.sub(r"[,\u202f\u2009]", "", match["digits"])
    exponent = 0
    if match["sup"]:
        exponent = int(match["sup"].translate(_SUPERSCRIPT))
    elif match["caret"]:
        exponent = int(match["caret"])
    elif match["exp"]:
        exponent = int(match["exp"])
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    value = float(digits) * 10.0**exponent
    if match["sign"]:
        value = -value
    return value, 0.5 * 10.0 ** (exponent - decimals)


def figure_problem(shown: str, expression: str) -> str | None:
    """Why the figure as shown is not what its arithmetic gives; None when it is."""
    try:
        written, half = shown_number(shown)
        computed = evaluate(expression)
    except FigureError as error:
        return str(error)
    if abs(computed - written) <= half * (1 + 1e-9):
        return None
    return f"'{shown}' is written, but {expression} = {computed:.6g}"


# --- numbers in the text that nothing accounts for ---------------------------------------------

_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_NUMBER = re.compile(r"(?<![\w.^_])(\d[\d,]*(?:\.\d+)?)(?![\w^_]|\.\d)")


def _significant(number: str) -> int:
    digits = number.replace(",", "").replace(".", "").lstrip("0").rstrip("0")
    return len(digits)


def checked_numbers(text: str) -> list[str]:
    """The numbers in prose a reader would take as figures: three or more significant digits,
    or a decimal point. Code, numbers joined to letters (GPT-2, fp16, 7B) and years are left."""
    text = _CODE.sub(" ", text)
    found = []
    for match in _NUMBER.finditer(text):
        number = match.group(1).rstrip(",")
        plain = number.replace(",", "")
        if re.fullmatch(r"(19|20)\d\d", plain):
            continue
        if "." in plain or _significant(number) >= 3:
            found.append(number)
    return found


def _spoken_forms(text: str) -> set[str]:
    """The numbers a written figure or given contains, as they could appear in the text."""
    return {m.group(1).rstrip(",") for m in _NUMBER.finditer(text)} | {text.strip()}


def _given_value(given: str) -> float | None:
    try:
        return shown_number(given)[0]
    except FigureError:
        return None


# --- one question ---------------------------------------------------------------------------------


def _words(text: str) -> int:
    return len(_CODE.sub(" code ", text).split())


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


def question_errors(
    entry: Mapping[str, Any], *, diagrams: Iterable[str] | None = None
) -> dict[str, str]:
    """What is wrong with one question of the bank, by field; empty when nothing is."""
    errors: dict[str, str] = {}
    if not isinstance(entry, Mapping):
        return {"": "each question is a mapping of fields"}
    unknown = set(entry) - set(REQUIRED) - set(OPTIONAL) - set(NUMERIC) - {"code"}
    for field in sorted(unknown):
        errors[field] = "not a field of an interview question"
    for field in REQUIRED:
        if field not in entry:
            errors[field] = "missing"
    key = entry.get("key")
    if not isinstance(key, str) or not SLUG.match(key) or len(key) > 80:
        errors["key"] = "a slug of at most 80 characters"
    if entry.get("level") not in LEVELS:
        errors["level"] = "one of junior, mid, senior"
    for field in ("question", "model_answer", "notes"):
        if field in entry and (not isinstance(entry[field], str) or not entry[field].strip()):
            errors[field] = "Markdown text"
    for field, (low, high) in WORDS.items():
        if isinstance(entry.get(field), str) and not low <= _words(entry[field]) <= high:
            errors[field] = f"{_words(entry[field])} words; between {low} and {high}"
    # A coding question states its conventions (shapes, axes, constants): it may say more.
    most = 200 if "code" in entry else 120
    if isinstance(entry.get("question"), str) and _words(entry["question"]) > most:
        errors["question"] = f"at most {most} words"
    if "code" in entry:
        problem = code_problem(entry["code"])
        if problem:
            errors["code"] = problem
        if any(f in entry for f in NUMERIC):
            errors["code"] = "a coding question is not also numeric"
    for field, (low, high) in ITEMS.items():
        if field not in entry:
            continue
        value = entry[field]
        if not _strings(value) and not (value == [] and low == 0):
            errors[field] = "a list of plain strings"
        elif not low <= len(value) <= high:
            errors[field] = f"{len(value)} items; between {low} and {high}"
        elif field in ITEM_CHARS and any(len(v) > ITEM_CHARS[field] for v in value):
            errors[field] = f"each at most {ITEM_CHARS[field]} characters"
    related = entry.get("related") or []
    if isinstance(related, list) and any(
        not isinstance(r, str) or not SLUG.match(r) for r in related
    ):
        errors["related"] = "keys of other bank questions"
    if key in related:
        errors["related"] = "a question is not related to itself"
    if "lesson" in entry and not (
        isinstance(entry["lesson"], str) and LESSON_REF.match(entry["lesson"])
    ):
        errors["lesson"] = "<course>/<lesson>, both slugs"
    if "diagram" in entry and diagrams is not None and entry["diagram"] not in set(diagrams):
        errors["diagram"] = f"no diagram '{entry['diagram']}'"
    givens = entry.get("givens", [])
    if not _strings(givens) and givens != []:
        errors["givens"] = "a list of numbers as written, as strings"
        givens = []
    figures = entry.get("figures", [])
    if not isinstance(figures, list) or not all(
        isinstance(f, Mapping) and set(f) == {"shown", "value"} for f in figures
    ):
        errors["figures"] = "a list of {shown, value}"
        figures = []
    lists = ("solution_steps", "key_points", "wrong_turns", "follow_ups")
    text = "\n".join(
        [
            *(str(entry.get(f, "")) for f in CHECKED_TEXT),
            *(str(item) for name in lists for item in entry.get(name) or [] if item),
        ]
    )
    for figure in figures:
        shown, value = str(figure["shown"]), str(figure["value"])
        if shown not in text:
            errors["figures"] = f"'{shown}' is not in the question's text"
            break
        problem = figure_problem(shown, value)
        if problem:
            errors["figures"] = problem
            break
    accounted: set[str] = set()
    for written in [*givens, *(str(f["shown"]) for f in figures)]:
        accounted |= _spoken_forms(written)
    prose = "\n".join(
        [str(entry.get(f, "")) for f in ("model_answer", "notes")]
        + [str(s) for s in entry.get("solution_steps") or []]
    )
    loose = [n for n in checked_numbers(prose) if n not in accounted]
    if loose and "figures" not in errors:
        errors["figures"] = (
            "numbers neither worked out in figures nor listed in givens: " + ", ".join(loose[:8])
        )
    if "unit" in entry and entry["unit"] != "percent":
        errors["unit"] = (
            "only 'percent' (then the answer is in percent); say other units in the question"
        )
    numeric = [f for f in NUMERIC if f in entry]
    if numeric:
        if ("answer" in entry) == ("generator" in entry):
            errors["answer"] = "a numeric question gives exactly one of answer and generator"
        if "answer" in entry:
            values = [entry["answer"]] + [
                m.get("value") for m in entry.get("mistakes") or [] if isinstance(m, Mapping)
            ]
            computed = [
                evaluate(str(f["value"]))
                for f in figures
                if not figure_problem(str(f["shown"]), str(f["value"]))
            ] + [v for v in map(_given_value, givens) if v is not None]
            for value in values:
                if not isinstance(value, int | float) or isinstance(value, bool):
                    errors["answer"] = "the answer and every mistake's value are numbers"
                    break
                if not any(math.isclose(value, c, rel_tol=1e-6, abs_tol=1e-9) for c in computed):
                    errors["answer"] = (
                        f"{value} (the answer or a mistake) is not one of the figures' values"
                    )
                    break
    return errors


def _stub(body: list[ast.stmt]) -> bool:
    """A function body that does nothing yet: a docstring, `...`, `pass` or raising
    NotImplementedError."""
    for statement in body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring or `...`
        if isinstance(statement, ast.Raise) and "NotImplementedError" in ast.unparse(statement):
            continue
        return False
    return True


def code_problem(code: Any) -> str:
    """What is wrong with a coding question's `code` ("" when nothing is): its problem must be
    the engine's, and both its starter and its solution must define the problem's function
    with exactly its parameters, the starter as a stub and the solution not."""
    from engine.coding import PROBLEMS

    if not isinstance(code, Mapping) or set(code) != set(CODE_FIELDS):
        return f"a mapping of {', '.join(CODE_FIELDS)}"
    problem = PROBLEMS.get(code["problem"]) if isinstance(code["problem"], str) else None
    if problem is None:
        return (
            f"problem: none named {code['problem']!r} (the engine's: {', '.join(sorted(PROBLEMS))})"
        )
    for part in ("starter", "solution"):
        source = code[part]
        if not isinstance(source, str) or not source.strip() or len(source) > CODE_CHARS:
            return f"{part}: Python source of at most {CODE_CHARS:,} characters"
        try:
            tree = ast.parse(source)
        except SyntaxError as error:
            return f"{part}: does not parse (line {error.lineno}: {error.msg})"
        found = [
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name == problem.function
        ]
        if not found:
            return f"{part}: defines no function {problem.function}"
        arguments = found[0].args
        names = tuple(a.arg for a in arguments.posonlyargs + arguments.args)
        if names != problem.parameters or arguments.vararg or arguments.kwarg:
            wanted = ", ".join(problem.parameters)
            return f"{part}: {problem.function} takes exactly ({wanted})"
        if _stub(found[0].body) != (part == "starter"):
            return f"{part}: " + (
                "the starter's function body is a stub (`...`)"
                if part == "starter"
                else "the solution's function does the work"
            )
    return ""


def file_errors(path: Path, *, diagrams: Iterable[str] | None = None) -> list[str]:
    """Every rule one questions file breaks, as lines naming the question and field."""
    import yaml

    from course.markdown import formula_problems

    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        return [f"{path}: a list of questions"]
    lines, keys = [], set()
    for i, entry in enumerate(entries):
        name = entry.get("key", f"#{i + 1}") if isinstance(entry, Mapping) else f"#{i + 1}"
        for field, message in question_errors(entry, diagrams=diagrams).items():
            lines.append(f"{path}: {name}: {field}: {message}")
        for field in CHECKED_TEXT:
            text = entry.get(field) if isinstance(entry, Mapping) else None
            for message in formula_problems(text) if isinstance(text, str) else []:
                lines.append(f"{path}: {name}: {field}: {message}")
        if name in keys:
            lines.append(f"{path}: {name}: key: used twice")
        keys.add(name)
    for entry in entries:
        if isinstance(entry, Mapping):
            for other in entry.get("related") or []:
                if other not in keys:
                    lines.append(
                        f"{path}: {entry.get('key')}: related: '{other}' is not in this file"
                    )
    levels = [e.get("level") for e in entries if isinstance(e, Mapping)]
    counts = {level: levels.count(level) for level in LEVELS}
    lines.append(f"{path}: {len(entries)} questions, {counts}")
    return lines


if __name__ == "__main__":  # pragma: no cover (an author's tool)
    for argument in sys.argv[1:]:
        print("\n".join(file_errors(Path(argument))))


# --- near-duplicates across the bank -------------------------------------------------------------

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "is",
        "are",
        "be",
        "by",
        "with",
        "what",
        "why",
        "how",
        "does",
        "do",
        "it",
        "its",
        "that",
        "this",
        "which",
        "you",
        "your",
        "when",
        "would",
        "can",
        "as",
        "at",
        "from",
        "vs",
        "versus",
        "between",
        "about",
        "into",
        "than",
        "their",
        "they",
        "them",
        "there",
        "these",
        "those",
        "not",
        "if",
        "then",
        "so",
        "was",
        "were",
        "has",
        "have",
        "had",
        "will",
    ]
)
DUPLICATE_AT = 0.45  # cosine similarity of the questions' wording above which two are one


def _terms(text: str) -> list[str]:
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP]
    words = [w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words]
    return words + [f"{a}_{b}" for a, b in itertools.pairwise(words)]


def near_duplicates(
    texts: Mapping[str, str], *, threshold: float = DUPLICATE_AT
) -> list[tuple[float, str, str]]:
    """Every pair of questions whose wording is closer than `threshold`: the cosine similarity
    of their words and word pairs weighted by rarity (tf-idf), most alike first."""
    import numpy as np

    keys = list(texts)
    rows = [_terms(texts[k]) for k in keys]
    vocabulary = {t: i for i, t in enumerate(sorted({t for row in rows for t in row}))}
    counts = np.zeros((len(keys), len(vocabulary)))
    for i, row in enumerate(rows):
        for term in row:
            counts[i, vocabulary[term]] += 1
    documents = (counts > 0).sum(axis=0)
    weights = counts * (np.log((1 + len(keys)) / (1 + documents)) + 1)
    norms = np.linalg.norm(weights, axis=1, keepdims=True)
    weights = weights / np.where(norms == 0, 1, norms)
    similar = weights @ weights.T
    first, second = np.triu_indices(len(keys), k=1)
    close = similar[first, second] > threshold
    pairs = [
        (float(similar[i, j]), keys[i], keys[j])
        for i, j in zip(first[close], second[close], strict=True)
    ]
    return sorted(pairs, reverse=True)
