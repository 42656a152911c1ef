"""``python -m conformance --coverage``: which test checks each scenario id, and which ids none does."""

from __future__ import annotations

from pathlib import Path
from typing import IO

from .scenarios import Scenario, TestFunction, load, tests_in


def coverage(categories_dir: Path) -> tuple[dict[str, Scenario], dict[str, list[TestFunction]]]:
    """The scenarios of ``SCENARIOS.md`` and, per id, the tests that check it."""
    scenarios = load()
    by_id: dict[str, list[TestFunction]] = {}
    for test in tests_in(categories_dir):
        for sid in test.ids:
            by_id.setdefault(sid, []).append(test)
    return scenarios, by_id


def print_coverage(categories_dir: Path, out: IO[str]) -> int:
    """Print the coverage per category; returns how many ids are neither covered nor n/a."""
    scenarios, by_id = coverage(categories_dir)
    missing_total = 0
    categories = list(dict.fromkeys(s.category for s in scenarios.values()))
    for category in categories:
        members = [s for s in scenarios.values() if s.category == category]
        covered = [s for s in members if s.id in by_id]
        not_applicable = [s for s in members if s.id not in by_id and s.not_applicable]
        missing = [s for s in members if s.id not in by_id and not s.not_applicable]
        missing_total += len(missing)
        out.write(
            f"{category}: {len(covered)} covered, {len(not_applicable)} not applicable, "
            f"{len(missing)} not covered (of {len(members)})\n"
        )
        for s in covered:
            tests = ", ".join(f"{t.category}::{t.name}" for t in by_id[s.id])
            out.write(f"  {s.id:7s} {tests}\n")
        for s in not_applicable:
            out.write(f"  {s.id:7s} n/a: {s.not_applicable}\n")
        for s in missing:
            out.write(f"  {s.id:7s} NOT COVERED: {s.text}\n")
    unknown = sorted(set(by_id) - set(scenarios))
    if unknown:
        out.write(f"ids checked by tests but missing from SCENARIOS.md: {', '.join(unknown)}\n")
    run = len([s for s in scenarios.values() if s.id in by_id])
    out.write(
        f"total: {run} of {len(scenarios)} scenario ids covered by tests, "
        f"{sum(1 for s in scenarios.values() if s.id not in by_id and s.not_applicable)} not applicable, "
        f"{missing_total} not covered\n"
    )
    return missing_total + len(unknown)
