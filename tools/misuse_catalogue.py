"""Write the misuse catalogue of docs/errors.md from the table of tests/test_misuse.py.

The table is the one source: each row is a tested wrong call, so the documentation lists only
what the tests check. Run ``python tools/misuse_catalogue.py`` after changing the table;
``--check`` exits 1 when docs/errors.md differs (tests/test_misuse.py runs the check too).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ERRORS_MD = ROOT / "docs" / "errors.md"
BEGIN = "<!-- misuse catalogue: written by tools/misuse_catalogue.py from tests/test_misuse.py -->"
END = "<!-- end of the misuse catalogue -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _expected(expect: Any) -> str:
    """``errc.invalid``, or a Python exception's name."""
    return f"`errc.{expect.name}`" if hasattr(expect, "name") and not isinstance(expect, type) \
        else f"`{expect.__name__}`"


def render(cases: list[Any]) -> str:
    """The catalogue section (markers included) for ``cases`` (``test_misuse.Case`` rows)."""
    lines = [
        BEGIN,
        "",
        f"{len(cases)} wrong calls, each tested on every device under test (a case that needs an "
        "aspect, such as USM, runs where the device has it):",
        "",
        "| id | area | the wrong call | raises | the message names |",
        "| --- | --- | --- | --- | --- |",
    ]
    for case in cases:
        area = case.area + (f" (needs `{case.needs}`)" if case.needs else "")
        lines.append(f"| `{case.id}` | {_cell(area)} | {_cell(case.wrong)} | {_expected(case.expect)} "
                     f"| `{_cell(case.says)}` |")
    lines += ["", END]
    return "\n".join(lines)


def updated(text: str, section: str) -> str:
    """``text`` (docs/errors.md) with its catalogue section replaced by ``section``."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + section + text[end:]


def load_cases() -> list[Any]:
    """The ``CASES`` table of tests/test_misuse.py (imported with tests/ on the path)."""
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT))
    import test_misuse  # the tests directory is on the path only now

    return list(test_misuse.CASES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/errors.md is out of date")
    args = parser.parse_args(argv)
    text = ERRORS_MD.read_text()
    new = updated(text, render(load_cases()))
    if args.check:
        if new != text:
            print("docs/errors.md is out of date: run python tools/misuse_catalogue.py", file=sys.stderr)
            return 1
        return 0
    ERRORS_MD.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
