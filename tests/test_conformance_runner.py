"""The conformance runner: child processes per category, JSON / JUnit / HTML reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import sycl_ocl as sycl

RUNNER = Path(__file__).resolve().parents[1] / "conformance" / "run.py"


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RUNNER), "--report-dir", str(tmp_path), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_every_category_passes_on_pocl_with_three_reports(tmp_path: Path) -> None:
    out = _run(tmp_path, "--device", "Portable Computing Language")
    assert out.returncode == 0, out.stdout + out.stderr
    reports = sorted(tmp_path.glob("*.json"))
    assert reports, out.stdout
    data = json.loads(reports[0].read_text())
    assert data["device"]["platform_name"] == "Portable Computing Language"
    assert {name: c["status"] for name, c in data["categories"].items()} == dict.fromkeys(
        data["categories"], "passed")
    assert {r["id"] for r in data["rows"]} >= {"EX-04", "EX-07", "BU-07", "KB-47", "HT-06"}
    assert all(r["status"] in ("passed", "skipped") for r in data["rows"])
    stem = reports[0].stem
    assert (tmp_path / f"{stem}.junit.xml").read_text().count("<testcase") == len(data["rows"])
    assert "SYCL 2020 conformance report" in (tmp_path / f"{stem}.html").read_text()


def test_a_crashing_category_is_reported_not_fatal(tmp_path: Path) -> None:
    categories = tmp_path / "categories"
    categories.mkdir()
    (categories / "test_crash.py").write_text(
        "import os, signal\n\ndef test_ZZ_01_crash():\n    os.kill(os.getpid(), signal.SIGSEGV)\n"
    )
    # A category that really checks something, so "passed" is earned in the child too.
    (categories / "test_fine.py").write_text(
        "import sycl_ocl as sycl\n\ndef test_ZZ_02_fine():\n"
        "    assert sycl.range(2, 3).size() == 6\n"
    )
    out = _run(tmp_path, "--device", "Portable Computing Language", "--categories-dir", str(categories))
    assert out.returncode == 1
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert data["categories"]["crash"]["status"] == "crashed"
    assert "SIGSEGV" in data["categories"]["crash"]["crash"]
    assert data["categories"]["fine"]["status"] == "passed"


def test_unknown_device_pattern_lists_nothing(tmp_path: Path) -> None:
    out = _run(tmp_path, "--device", "no such device anywhere")
    assert out.returncode == 2
    assert "no device matches" in out.stderr
    assert sycl.platform.get_platforms()  # the suite itself still sees the real platforms
