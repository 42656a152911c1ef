"""Per-device conformance reports: JSON rows, a JUnit XML file and an HTML page."""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Row:
    """One scenario's result."""

    id: str
    category: str
    title: str
    status: str  # passed | failed | skipped | crashed
    duration_s: float
    errc: str | None = None
    reason: str | None = None


@dataclass
class Report:
    """Everything one device's run produced."""

    device: dict[str, Any]
    commit: str
    started: str
    rows: list[Row] = field(default_factory=list)
    categories: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add_category(self, name: str, rows: list[Row], crash: str | None, seconds: float) -> None:
        """Add one category's rows and its roll-up; a crash fails the category."""
        self.rows.extend(rows)
        counts = {s: sum(r.status == s for r in rows) for s in ("passed", "failed", "skipped")}
        status = "crashed" if crash else ("failed" if counts["failed"] else "passed")
        self.categories[name] = {**counts, "status": status, "crash": crash, "seconds": seconds}

    def summary(self) -> dict[str, int]:
        """How many scenarios passed, failed, were skipped, and how many categories crashed."""
        out = {s: sum(r.status == s for r in self.rows) for s in ("passed", "failed", "skipped")}
        out["crashed_categories"] = sum(c["status"] == "crashed" for c in self.categories.values())
        return out


def rows_from_junit(path: Path, category: str) -> list[Row]:
    """Read pytest's JUnit XML into rows."""
    rows = []
    for case in ET.parse(path).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        status, reason = "passed", None
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                status = "skipped" if tag == "skipped" else "failed"
                reason = (node.get("message") or node.text or "").strip()[:2000]
        rows.append(
            Row(
                id=_scenario_id(case.get("name", "")),
                category=category,
                title=props.get("title") or case.get("name", ""),
                status=status,
                duration_s=round(float(case.get("time", 0.0)), 4),
                errc=props.get("errc"),
                reason=reason,
            )
        )
    return rows


def _scenario_id(test_name: str) -> str:
    """``test_DV_06_info_types[x]`` -> ``DV-06[x]``."""
    base, _, param = test_name.partition("[")
    parts = base.removeprefix("test_").split("_")
    sid = f"{parts[0]}-{parts[1]}" if len(parts) > 1 and parts[1].isdigit() else base
    return f"{sid}[{param}" if param else sid


def write(report: Report, directory: Path, stem: str) -> list[Path]:
    """Write the JSON, JUnit XML and HTML files; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"{stem}.json", directory / f"{stem}.junit.xml", directory / f"{stem}.html"]
    data = asdict(report) | {"summary": report.summary()}
    paths[0].write_text(json.dumps(data, indent=2))
    paths[1].write_bytes(_junit(report))
    paths[2].write_text(_html(report))
    return paths


def _junit(report: Report) -> bytes:
    suites = ET.Element("testsuites", name=f"sycl_ocl conformance: {report.device.get('label')}")
    for name, roll in report.categories.items():
        rows = [r for r in report.rows if r.category == name]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=name,
            tests=str(len(rows) + bool(roll["crash"])),
            failures=str(roll["failed"] + bool(roll["crash"])),
            skipped=str(roll["skipped"]),
        )
        for row in rows:
            case = ET.SubElement(suite, "testcase", classname=name, name=row.id, time=str(row.duration_s))
            if row.status == "failed":
                ET.SubElement(case, "failure", message=row.reason or "")
            elif row.status == "skipped":
                ET.SubElement(case, "skipped", message=row.reason or "")
        if roll["crash"]:
            case = ET.SubElement(suite, "testcase", classname=name, name=f"{name} (process)")
            ET.SubElement(case, "failure", message=roll["crash"])
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def _html(report: Report) -> str:
    esc = html.escape
    dev = "".join(f"<tr><th>{esc(k)}</th><td>{esc(str(v))}</td></tr>" for k, v in report.device.items())
    cats = "".join(
        f"<tr class='{c['status']}'><td>{esc(n)}</td><td>{c['status']}</td><td>{c['passed']}</td>"
        f"<td>{c['failed']}</td><td>{c['skipped']}</td><td>{esc(c['crash'] or '')}</td></tr>"
        for n, c in report.categories.items()
    )
    rows = "".join(
        f"<tr class='{r.status}'><td>{esc(r.category)}</td><td>{esc(r.id)}</td><td>{esc(r.title)}</td>"
        f"<td>{r.status}</td><td>{esc(r.errc or '')}</td><td>{r.duration_s}</td>"
        f"<td><pre>{esc(r.reason or '')}</pre></td></tr>"
        for r in report.rows
    )
    s = report.summary()
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>SYCL 2020 conformance report: {esc(str(report.device.get("label")))}</title>
<style>body{{font-family:sans-serif}} td,th{{border:1px solid #ccc;padding:2px 6px;vertical-align:top}}
table{{border-collapse:collapse}} .failed,.crashed{{background:#fdd}} .skipped{{background:#ffd}}
.passed{{background:#dfd}} pre{{margin:0;white-space:pre-wrap;max-width:60em}}</style></head><body>
<h1>SYCL 2020 conformance report (sycl_ocl)</h1>
<p>Commit {esc(report.commit)}, started {esc(report.started)}: {s["passed"]} passed, {s["failed"]} failed,
{s["skipped"]} skipped, {s["crashed_categories"]} categories crashed.</p>
<h2>Device information</h2><table>{dev}</table>
<h2>Categories</h2><table><tr><th>category</th><th>status</th><th>passed</th><th>failed</th>
<th>skipped</th><th>crash</th></tr>{cats}</table>
<h2>Scenarios</h2><table><tr><th>category</th><th>id</th><th>title</th><th>status</th><th>errc</th>
<th>seconds</th><th>reason</th></tr>{rows}</table></body></html>
"""
