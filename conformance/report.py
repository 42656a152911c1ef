"""Per-device conformance reports: a JSON file, a JUnit XML file and one HTML page.

One row per test run: the scenario ids it checks, its status (passed, failed, skipped, xfailed,
crashed, timed out), the errc it observed, its duration and the reason of every skip or
expected failure. Scenarios that cannot apply to sycl_ocl are rows too, skipped with the
reason ``SCENARIOS.md`` gives.
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

# Statuses, worst first: a category or a scenario takes the worst status of its rows.
STATUSES = ("crashed", "timed out", "failed", "xfailed", "skipped", "passed")
BAD = frozenset(("crashed", "timed out", "failed"))


def installed_version() -> str:
    """The version of the installed sycl_ocl distribution, as its metadata says."""
    try:
        return metadata.version("sycl_ocl")
    except metadata.PackageNotFoundError:
        return "not installed (run from a checkout)"


@dataclass
class Row:
    """One test's result (or one not-applicable scenario's)."""

    category: str
    test: str
    ids: list[str]
    title: str
    status: str
    duration_s: float = 0.0
    errc: str | None = None
    reason: str | None = None  # why it was skipped or expected to fail
    message: str | None = None  # the failure, in one line
    details: str | None = None  # the failure's traceback or the process's last output


def worst(statuses: list[str]) -> str:
    """The worst of ``statuses`` (``passed`` for none)."""
    return min(statuses, key=STATUSES.index, default="passed")


def category_status(rows: list[Row]) -> str:
    """A category's status: the worst of its rows, skips aside (unless all were skipped)."""
    ran = [r.status for r in rows if r.status != "skipped"]
    return worst(ran) if ran or not rows else "skipped"


@dataclass
class Report:
    """Everything one device's run produced."""

    device: dict[str, Any]
    run: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    categories: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add_category(self, name: str, rows: list[Row], seconds: float) -> None:
        """Add one category's rows and its roll-up."""
        self.rows.extend(rows)
        counts = {s: sum(r.status == s for r in rows) for s in STATUSES}
        self.categories[name] = {
            "status": category_status(rows),
            "seconds": round(seconds, 2),
            **counts,
        }

    def scenarios(self) -> dict[str, dict[str, Any]]:
        """Per scenario id: the worst status of the rows that check it, and those tests."""
        by_id: dict[str, list[Row]] = {}
        for row in self.rows:
            for sid in row.ids:
                by_id.setdefault(sid, []).append(row)
        return {
            sid: {"status": worst([r.status for r in rows]), "tests": [r.test for r in rows]}
            for sid, rows in sorted(by_id.items())
        }

    def summary(self) -> dict[str, int]:
        """Counts of rows per status, and of distinct scenario ids (run, and run or n/a)."""
        out = {s: sum(r.status == s for r in self.rows) for s in STATUSES}
        scenarios = self.scenarios()
        out["scenario_ids"] = len(scenarios)
        out["scenario_ids_run"] = len(
            {sid for r in self.rows if not (r.reason or "").startswith(NOT_APPLICABLE) for sid in r.ids}
        )
        return out

    def ok(self) -> bool:
        """Whether nothing failed, crashed or timed out."""
        return not any(r.status in BAD for r in self.rows)


NOT_APPLICABLE = "not applicable: "


def write(report: Report, directory: Path, stem: str) -> list[Path]:
    """Write ``<stem>.json``, ``<stem>.junit.xml`` and ``<stem>.html``; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"{stem}.json", directory / f"{stem}.junit.xml", directory / f"{stem}.html"]
    data = {**asdict(report), "summary": report.summary(), "scenarios": report.scenarios()}
    paths[0].write_text(json.dumps(data, indent=1) + "\n")
    paths[1].write_bytes(junit(report))
    paths[2].write_text(html_page(report))
    return paths


def junit(report: Report) -> bytes:
    """The rows as JUnit XML: one test suite per category, one test case per row."""
    suites = ET.Element("testsuites", name=f"sycl_ocl conformance: {report.device.get('label')}")
    for name, roll in report.categories.items():
        rows = [r for r in report.rows if r.category == name]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=name,
            tests=str(len(rows)),
            failures=str(roll["failed"]),
            errors=str(roll["crashed"] + roll["timed out"]),
            skipped=str(roll["skipped"] + roll["xfailed"]),
            time=str(roll["seconds"]),
        )
        for row in rows:
            case = ET.SubElement(
                suite, "testcase", classname=name, name=_case_name(row), time=str(row.duration_s)
            )
            if row.status == "failed":
                ET.SubElement(case, "failure", message=row.message or "").text = row.details
            elif row.status in ("crashed", "timed out"):
                ET.SubElement(case, "error", message=f"{row.status}: {row.message}").text = row.details
            elif row.status in ("skipped", "xfailed"):
                prefix = "expected failure: " if row.status == "xfailed" else ""
                ET.SubElement(case, "skipped", message=prefix + (row.reason or ""))
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def _case_name(row: Row) -> str:
    return f"{' '.join(row.ids)} {row.test}".strip()


_STYLE = """body{font-family:sans-serif;margin:1.5em;max-width:90em}
td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top;text-align:left}
table{border-collapse:collapse;margin-bottom:1em} .passed{background:#dfd}
.failed,.crashed,.timed{background:#fcc} .skipped{background:#ffd} .xfailed{background:#fe9}
pre{margin:0;white-space:pre-wrap;font-size:85%} h2{margin-top:1.5em}"""


def html_page(report: Report) -> str:
    """One self-contained page: identity, a summary per category, then failures, then the rest."""
    esc = html.escape
    s = report.summary()
    title = f"SYCL 2020 conformance report (sycl_ocl): {report.device.get('label')}"
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{esc(title)}</h1>",
        f"<p>{s['passed']} passed, {s['failed']} failed, {s['crashed']} crashed, {s['timed out']} timed "
        f"out, {s['xfailed']} expected failures, {s['skipped']} skipped; {s['scenario_ids']} scenario "
        f"ids ({s['scenario_ids_run']} run).</p>",
        "<h2>Implementation and run</h2>",
        _table(report.run.items()),
        "<h2>Device</h2>",
        _table((k, v) for k, v in report.device.items() if k not in ("extensions", "aspects")),
        "<h2>Aspects and extensions</h2>",
        _table(
            [
                ("aspects", " ".join(report.device.get("aspects", []))),
                ("extensions", " ".join(report.device.get("extensions", []))),
            ]
        ),
        "<h2>Categories</h2><table><tr><th>category</th><th>status</th>"
        + "".join(f"<th>{st}</th>" for st in reversed(STATUSES))
        + "<th>seconds</th></tr>",
    ]
    for name, c in report.categories.items():
        counts = "".join(f"<td>{c[st]}</td>" for st in reversed(STATUSES))
        parts.append(
            f"<tr class='{_css(c['status'])}'><td>{esc(name)}</td><td>{c['status']}</td>{counts}"
            f"<td>{c['seconds']}</td></tr>"
        )
    parts.append("</table>")
    sections = (
        ("Failures", lambda r: r.status in BAD),
        ("Expected failures", lambda r: r.status == "xfailed"),
        ("Skipped, with reasons", lambda r: r.status == "skipped"),
        ("Passed", lambda r: r.status == "passed"),
    )
    for heading, keep in sections:
        rows = [r for r in report.rows if keep(r)]
        parts.append(f"<h2>{heading} ({len(rows)})</h2>")
        if rows:
            parts.append(_rows_table(rows))
    parts.append("</body></html>\n")
    return "".join(parts)


def _css(status: str) -> str:
    return status.split()[0]


def _table(items: Any) -> str:
    esc = html.escape
    body = "".join(f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>" for k, v in items)
    return f"<table>{body}</table>"


def _rows_table(rows: list[Row]) -> str:
    esc = html.escape
    out = [
        "<table><tr><th>category</th><th>ids</th><th>test</th><th>status</th><th>errc</th>"
        "<th>seconds</th><th>what</th></tr>"
    ]
    for r in rows:
        what = esc(r.title)
        if r.reason:
            what += f"<br><i>{esc(r.reason)}</i>"
        if r.message:
            what += f"<pre>{esc(r.message)}</pre>"
        if r.details and r.status in BAD:
            what += f"<details><summary>details</summary><pre>{esc(r.details)}</pre></details>"
        out.append(
            f"<tr class='{_css(r.status)}'><td>{esc(r.category)}</td><td>{esc(' '.join(r.ids))}</td>"
            f"<td>{esc(r.test)}</td><td>{r.status}</td><td>{esc(r.errc or '')}</td>"
            f"<td>{r.duration_s}</td><td>{what}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)
