"""Scenario ids: which ones a test checks, and the list in ``SCENARIOS.md``.

A test names the ids it checks in its function name, ``test_<CODE>_<NN>[_<NN>...]_<words>``
(``test_KB_61_62_spec_constants`` checks KB-61 and KB-62), and may add ids of other codes with
``@pytest.mark.scenarios("AC-14")``. ``SCENARIOS.md`` holds one line per id, grouped under a
``## category`` heading; a line whose text contains ``n/a:`` is not applicable, with the reason
that follows.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS_FILE = HERE / "SCENARIOS.md"

_NAME = re.compile(r"^test_([A-Z]{2,3})((?:_\d{2,3})+)(?:_|$)")
_LINE = re.compile(r"^- ([A-Z]{2,3}-\d{2,3}): (.*)$")
_HEADING = re.compile(r"^## (\w+)")
_NOT_APPLICABLE = "n/a:"


@dataclass(frozen=True)
class Scenario:
    """One line of ``SCENARIOS.md``."""

    id: str
    category: str
    text: str
    not_applicable: str | None  # the reason, for a scenario that cannot apply to sycl_ocl


def ids_of(test_name: str, marked: tuple[str, ...] = ()) -> list[str]:
    """The scenario ids a test checks: those in its name, then those of its marker."""
    found = []
    match = _NAME.match(test_name.partition("[")[0])
    if match:
        code = match.group(1)
        found = [f"{code}-{n}" for n in match.group(2).strip("_").split("_")]
    return list(dict.fromkeys([*found, *marked]))


def load(path: Path = SCENARIOS_FILE) -> dict[str, Scenario]:
    """Every scenario of ``SCENARIOS.md``, by id, in file order."""
    scenarios: dict[str, Scenario] = {}
    category = ""
    for line in path.read_text().splitlines():
        heading = _HEADING.match(line)
        if heading:
            category = heading.group(1)
            continue
        match = _LINE.match(line)
        if match:
            sid, text = match.groups()
            text, _, reason = text.partition(_NOT_APPLICABLE)
            scenarios[sid] = Scenario(sid, category, text.strip(" -"), reason.strip() or None)
    return scenarios


@dataclass(frozen=True)
class TestFunction:
    """A test function found in a category file, without importing it."""

    category: str
    name: str
    ids: tuple[str, ...]


def tests_in(directory: Path) -> list[TestFunction]:
    """The test functions of every ``test_<category>.py`` in ``directory``, with their ids."""
    found = []
    for path in sorted(directory.glob("test_*.py")):
        category = path.stem.removeprefix("test_")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                marked = tuple(_marked_ids(node))
                found.append(TestFunction(category, node.name, tuple(ids_of(node.name, marked))))
    return found


def _marked_ids(node: ast.FunctionDef) -> list[str]:
    """The string arguments of a ``@pytest.mark.scenarios(...)`` decorator."""
    ids = []
    for deco in node.decorator_list:
        if (
            isinstance(deco, ast.Call)
            and isinstance(deco.func, ast.Attribute)
            and deco.func.attr == "scenarios"
        ):
            ids += [a.value for a in deco.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return ids
