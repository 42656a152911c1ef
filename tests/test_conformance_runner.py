"""The conformance runner (``python -m conformance``): child processes, crashes and hangs as rows,
statuses and reasons, the three report files, device listing and the scenario coverage.

The suite itself runs on PoCL and Oclgrind in ``make conformance-ci``; these tests drive the
runner with small categories written for the purpose.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import preferred_device

import sycl_ocl as sycl

ROOT = Path(__file__).resolve().parents[1]
DEVICE = preferred_device()  # the runner drives this device's platform
PLATFORM = DEVICE.get_platform().get_info(sycl.info.platform.name) if DEVICE else ""
pytestmark = pytest.mark.skipif(DEVICE is None, reason="no device under test (SYCL_OCL_TEST matches none)")


def _conformance(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "conformance", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def _category(directory: Path, name: str, body: str) -> None:
    directory.mkdir(exist_ok=True)
    (directory / f"test_{name}.py").write_text(textwrap.dedent(body))


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    reports = tmp_path / "reports"
    out = _conformance("--device", re.escape(PLATFORM), "--report-dir", str(reports),
                       "--categories-dir", str(tmp_path / "categories"), *args)
    found = sorted(reports.glob("*.json"))
    assert len(found) == 1, out.stdout + out.stderr
    return out, json.loads(found[0].read_text())


def _by_test(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["test"]: r for r in data["rows"]}


def test_a_crash_is_a_row_and_the_rest_of_the_category_runs(tmp_path: Path) -> None:
    _category(tmp_path / "categories", "crash", """
        import ctypes
        import sycl_ocl as sycl

        def test_ZZ_01_before():
            assert sycl.range(2, 3).size() == 6

        def test_ZZ_02_crash():
            ctypes.string_at(0)  # a real segmentation fault, as a driver bug would cause

        def test_ZZ_03_after():
            assert sycl.range(4).size() == 4
        """)
    out, data = _run(tmp_path)
    assert out.returncode == 1
    rows = _by_test(data)
    assert [rows[t]["status"] for t in ("test_ZZ_01_before", "test_ZZ_02_crash", "test_ZZ_03_after")] == [
        "passed", "crashed", "passed"]
    assert "SIGSEGV" in rows["test_ZZ_02_crash"]["message"]
    assert data["categories"]["crash"]["status"] == "crashed"
    assert "CRASHED ZZ-02 test_ZZ_02_crash" in out.stdout


def test_a_crash_in_a_child_process_is_a_failed_row_naming_the_signal(tmp_path: Path) -> None:
    """A category builds sources that may kill a driver's compiler in child processes of their
    own (support.child): the crash fails that test only, and its message names the signal."""
    _category(tmp_path / "categories", "isolated", """
        from conformance.support import child

        def test_ZZ_14_crashes_alone():
            child("import ctypes; ctypes.string_at(0)")

        def test_ZZ_15_answers():
            assert child("import json; print(json.dumps([1, 2]))") == [1, 2]
        """)
    _, data = _run(tmp_path)
    rows = _by_test(data)
    crashed = rows["test_ZZ_14_crashes_alone"]
    assert crashed["status"] == "failed" and "died from SIGSEGV" in crashed["message"], crashed
    assert rows["test_ZZ_15_answers"]["status"] == "passed"


def test_a_crash_row_keeps_the_fatal_error_report_from_its_start(tmp_path: Path) -> None:
    _category(tmp_path / "categories", "deep", """
        import ctypes

        def test_ZZ_16_deep_crash():
            def down(n):
                return ctypes.string_at(0) if n == 0 else down(n - 1)
            down(200)  # a stack longer than a row keeps
        """)
    _, data = _run(tmp_path)
    details = _by_test(data)["test_ZZ_16_deep_crash"]["details"]
    assert details.startswith("Fatal Python error: Segmentation fault"), details[:200]
    assert "string_at" in details.split("characters left out")[0]  # the crashing frame is kept


def test_a_hang_times_out_and_the_next_test_runs(tmp_path: Path) -> None:
    _category(tmp_path / "categories", "hang", """
        import threading

        def test_ZZ_04_hangs():
            threading.Event().wait()

        def test_ZZ_05_next():
            pass  # the row to check: it runs and passes after the hang
        """)
    out, data = _run(tmp_path, "--scenario-timeout", "5")
    rows = _by_test(data)
    assert rows["test_ZZ_04_hangs"]["status"] == "timed out", rows
    assert "longer than 5 s" in rows["test_ZZ_04_hangs"]["message"]
    assert rows["test_ZZ_05_next"]["status"] == "passed"
    assert out.returncode == 1


def test_the_category_time_limit_leaves_the_rest_not_run(tmp_path: Path) -> None:
    _category(tmp_path / "categories", "slow", """
        import threading

        def test_ZZ_06_hangs():
            threading.Event().wait()

        def test_ZZ_07_never_reached():
            pass  # the row to check: the time limit leaves it not run
        """)
    _, data = _run(tmp_path, "--timeout", "8", "--scenario-timeout", "60")
    rows = _by_test(data)
    assert rows["test_ZZ_06_hangs"]["status"] == "timed out"
    assert rows["test_ZZ_07_never_reached"]["status"] == "skipped"
    assert "time limit" in rows["test_ZZ_07_never_reached"]["reason"]


def test_statuses_reasons_ids_and_errc_in_three_reports(tmp_path: Path) -> None:
    _category(tmp_path / "categories", "kinds", """
        import pytest
        import sycl_ocl as sycl
        from conformance.support import raises

        def test_ZZ_08_09_errc():
            '''Checks an errc.'''
            with raises(sycl.errc.invalid):
                sycl.buffer(sycl.range(4), None)

        @pytest.mark.scenarios("YY-01")
        def test_ZZ_10_skip():
            pytest.skip("no such feature here")

        @pytest.mark.xfail(strict=True, reason="a known bug")
        def test_ZZ_11_known():
            assert False

        def test_ZZ_12_fails():
            assert 1 == 2, "one is not two"
        """)
    out, data = _run(tmp_path)
    assert out.returncode == 1
    rows = _by_test(data)
    errc = rows["test_ZZ_08_09_errc"]
    assert (errc["status"], errc["ids"], errc["errc"], errc["title"]) == (
        "passed", ["ZZ-08", "ZZ-09"], "invalid", "Checks an errc.")
    assert (rows["test_ZZ_10_skip"]["status"], rows["test_ZZ_10_skip"]["reason"]) == (
        "skipped", "no such feature here")
    assert rows["test_ZZ_10_skip"]["ids"] == ["ZZ-10", "YY-01"]
    known, fails = rows["test_ZZ_11_known"], rows["test_ZZ_12_fails"]
    assert (known["status"], known["reason"]) == ("xfailed", "a known bug")
    assert fails["status"] == "failed" and "one is not two" in fails["message"]
    assert data["scenarios"]["ZZ-12"]["status"] == "failed"
    assert data["device"]["platform_name"] == PLATFORM and "aspects" in data["device"]
    assert data["run"]["sycl_ocl_commit"]
    stem = next((tmp_path / "reports").glob("*.json")).stem
    suites = ET.parse(tmp_path / "reports" / f"{stem}.junit.xml").getroot()
    assert len(suites.findall(".//testcase")) == len(data["rows"])
    assert len(suites.findall(".//failure")) == 1 and len(suites.findall(".//skipped")) == 2
    page = (tmp_path / "reports" / f"{stem}.html").read_text()
    assert "one is not two" in page and "no such feature here" in page
    assert page.index("Failures (1)") < page.index("Passed (1)")


def test_exclude_file_and_category_selection(tmp_path: Path) -> None:
    # categories of one passing row each, to select and exclude
    for name in ("one", "two", "three"):
        _category(tmp_path / "categories", name, f"def test_ZZ_13_{name}():\n    pass\n")
    excluded = tmp_path / "exclude.txt"
    excluded.write_text("# skip this one\ntwo\n")
    out, data = _run(tmp_path, "--exclude-file", str(excluded), "--category", "one,two",
                     "--category", "three")
    assert out.returncode == 0
    assert list(data["categories"]) == ["one", "three"]


def test_one_failing_test_is_rerun_alone(tmp_path: Path) -> None:
    """--test NAME runs only the tests named (the way --help gives to rerun one scenario)."""
    _category(tmp_path / "categories", "one",
              "def test_ZZ_13_passes():\n    pass\ndef test_ZZ_13_fails():\n    assert False\n")
    out, data = _run(tmp_path, "--category", "one", "--test", "test_ZZ_13_fails")
    assert out.returncode == 1
    assert [(r["test"], r["status"]) for r in data["rows"]] == [("test_ZZ_13_fails", "failed")]


def test_help_lists_the_categories_and_how_to_rerun_one_scenario() -> None:
    out = _conformance("--help")
    assert out.returncode == 0
    files = (ROOT / "conformance" / "categories").glob("test_*.py")
    categories = sorted(p.stem.removeprefix("test_") for p in files)
    listed = " ".join(out.stdout.split("categories: ", 1)[1].split("\n\n", 1)[0].split())
    assert listed == ", ".join(categories)
    assert "--category kernel_bundle --test test_KB_71_link_error" in out.stdout


def test_an_installed_suite_names_the_installed_reproducers() -> None:
    """Outside a checkout an expected failure's reason names the reproducer as installed with
    the suite (the wheel holds them); from a checkout, as committed."""
    sys.path.insert(0, str(ROOT))
    try:
        from conformance.support import reproducers
    finally:
        sys.path.remove(str(ROOT))
    reason = "a defect (conformance/results/oclgrind-21.10/repro_link_unresolved.py)"
    assert reproducers(reason, from_checkout=True) == reason
    installed = Path(reproducers(reason, from_checkout=False).split("(", 1)[1].rstrip(")"))
    assert installed.is_absolute() and installed.is_file(), installed


def test_list_devices_info_dump_and_unknown_devices(tmp_path: Path) -> None:
    listing = _conformance("--list-devices", "--device", re.escape(PLATFORM))
    assert listing.returncode == 0
    assert any(line.startswith(">") and PLATFORM in line for line in listing.stdout.splitlines())
    dump = tmp_path / "info.json"
    _category(tmp_path / "categories", "none", "")
    _run(tmp_path, "--info-dump", str(dump))
    info = json.loads(dump.read_text())
    assert info["platform-name"] == PLATFORM
    assert info["device-type"] == f"device_type::{DEVICE.get_info(sycl.info.device.device_type).name}"  # type: ignore[union-attr]
    assert info["device-fp64"] in ("Supported", "Not Supported")
    missing = _conformance("--device", "no such device anywhere", "--report-dir", str(tmp_path))
    assert missing.returncode == 2 and "no device matches" in missing.stderr


def test_coverage_lists_every_scenario() -> None:
    out = _conformance("--coverage")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert any(line.startswith("  KB-33   kernel_bundle::test_KB_33_required_work_group") for line in lines)
    assert any(line.startswith("  BU-15   n/a:") for line in lines)
    not_covered = [line.split()[0] for line in lines if "NOT COVERED" in line]
    assert not_covered == []
    assert not any(line.startswith("ids checked by tests but missing") for line in lines)


@pytest.mark.parametrize("category", sorted(p.stem.removeprefix("test_")
                                            for p in (ROOT / "conformance" / "categories").glob("test_*.py")))
def test_every_category_has_scenarios(category: str) -> None:
    """Each category file names the scenario ids it checks in every test."""
    sys.path.insert(0, str(ROOT))
    try:
        from conformance.scenarios import tests_in
    finally:
        sys.path.remove(str(ROOT))
    tests = [t for t in tests_in(ROOT / "conformance" / "categories") if t.category == category]
    assert tests and all(t.ids for t in tests), [t.name for t in tests if not t.ids]
