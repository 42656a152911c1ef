"""The categories x drivers matrix of RESULTS.md, from committed reports.

``python -m conformance.matrix conformance/results`` reads ``<driver>/*.json`` (one report per
driver directory) and prints a Markdown table: per category and driver, the tests that passed of
those that ran, then what did not pass (expected failures, failures, crashes, time-outs), and
after the table every row that did not pass or was skipped for a reason other than n/a.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .report import BAD, NOT_APPLICABLE, STATUSES


def _cell(counts: dict[str, int]) -> str:
    ran = sum(counts.get(k, 0) for k in STATUSES if k != "skipped")
    text = f"{counts.get('passed', 0)}/{ran}"
    extra = [f"{counts[k]} {k}" for k in ("xfailed", "failed", "crashed", "timed out") if counts.get(k)]
    return text + (f" ({', '.join(extra)})" if extra else "")


def _reports(directory: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for sub in sorted(p for p in directory.iterdir() if p.is_dir()):
        for path in sorted(sub.glob("*.json")):
            found[f"{sub.name}"] = json.loads(path.read_text())
    return found


def matrix(directory: Path) -> str:
    """The Markdown matrix and the list of rows that did not pass."""
    reports = _reports(directory)
    categories = sorted({c for r in reports.values() for c in r["categories"]})
    lines = [
        "| category | " + " | ".join(reports) + " |",
        "| --- |" + " --- |" * len(reports),
    ]
    for category in categories:
        cells = [
            _cell(r["categories"].get(category, {})) if category in r["categories"] else "-"
            for r in reports.values()
        ]
        lines.append(f"| {category} | " + " | ".join(cells) + " |")
    totals = [_cell(r["summary"]) for r in reports.values()]
    lines.append("| **all** | " + " | ".join(f"**{t}**" for t in totals) + " |")
    ids = [str(r["summary"]["scenario_ids"]) for r in reports.values()]
    lines.append("| scenario ids in the report | " + " | ".join(ids) + " |")
    lines.append("")
    for driver, report in reports.items():
        lines.append(f"{driver}:")
        for row in report["rows"]:
            reason = row.get("reason") or ""
            if (
                row["status"] in BAD
                or row["status"] == "xfailed"
                or (row["status"] == "skipped" and not reason.startswith(NOT_APPLICABLE))
            ):
                what = row.get("message") or reason
                lines.append(
                    f"- {row['status']}: {' '.join(row['ids'])} `{row['test']}`: {what.splitlines()[0]}"
                )
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(matrix(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results")))
