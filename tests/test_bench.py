"""The benchmark suite runs end to end (``python -m bench --quick``) on PoCL and writes its JSON.

Not timed: quick mode checks that every benchmark and system runs; its figures mean nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import pocl_devices
from kernel_support import ROOT


def _bench(*args: str, module: str = "bench") -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    env = dict(os.environ, PYTHONPATH=path)
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


def test_quick_suite_runs_on_pocl(tmp_path: Path) -> None:
    if not pocl_devices():
        pytest.skip("needs PoCL, the device the quick suite runs on")
    names = [line.split()[0] for line in _bench("--list").stdout.splitlines()]
    done = _bench("--quick", "--device", "Portable", "--json", str(tmp_path / "quick.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((tmp_path / "quick.json").read_text())
    assert "Portable Computing Language" in result["device"]["label"] and result["device"]["driver_version"]
    assert result["sycl_ocl"]["commit"] and result["settings"]["quick"]
    assert list(result["benchmarks"]) == names and len(names) >= 10
    for name, record in result["benchmarks"].items():
        assert record["baseline"] in record["systems"], name
        assert all(stats["samples"] for stats in record["systems"].values()), name
        assert set(record["skipped_systems"]) <= {"dpctl"}, (name, record["skipped_systems"])
        assert any("sycl_ocl" in system for system in record["systems"]), name


def test_the_profiling_loop_runs_on_pocl() -> None:
    """``python -m bench.profile_chain`` (the loop docs/performance.md profiles) runs one chain."""
    if not pocl_devices():
        pytest.skip("needs PoCL, the device the loop runs on here")
    done = _bench("--device", "Portable", "--seconds", "0", module="bench.profile_chain")
    assert done.returncode == 0 and done.stdout.startswith("1 chains,"), done.stdout + done.stderr


def _index_rows() -> list[tuple[str, str]]:
    """(file, commit column) of each row of bench/README.md's index of ``bench/results/``."""
    text = (ROOT / "bench" / "README.md").read_text()
    rows = []
    for line in text.split("## The results (`bench/results/`)", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0].endswith(".json`"):
            rows.extend((name, cells[2]) for name in _names(cells[0]))
    return rows


def _names(cell: str) -> list[str]:
    """The files of an index cell: one name, or a name then shorthands of its last parts
    (```a-old-1.json`, `-old-2.json``` names ``a-old-1.json`` and ``a-old-2.json``)."""
    first, *others = [part.strip().strip("`") for part in cell.split(",")]
    names = [first]
    for other in others:
        stem = first.rsplit("-", other.count("-"))[0]
        names.append(stem + other)
    return names


def test_the_results_index_names_the_commit_each_file_records() -> None:
    """Every JSON file of ``bench/results/`` is indexed in bench/README.md, and the index's
    commit is the one the file records (or, for a tree exported to another machine, says
    which the file records, in brackets), "modified" where the checkout had local changes."""
    rows = _index_rows()
    on_disk = {p.name for p in (ROOT / "bench" / "results").glob("*.json")}
    assert {name for name, _ in rows} == on_disk
    wrong = []
    for name, column in rows:
        recorded = json.loads((ROOT / "bench" / "results" / name).read_text()).get("sycl_ocl")
        if recorded is None or recorded["commit"] is None:  # a copy without git, an MPI runner's file
            if "(`commit`: none" not in column and "(copy)" not in column:
                wrong.append(f"{name}: records no commit; the index must say so, got {column!r}")
            continue
        named = column.split("(`commit`: ", 1)[1] if "(`commit`: " in column else column
        expected = recorded["commit"][:7] + (" (modified)" if recorded["modified"] else "")
        if not named.startswith(expected) or (not recorded["modified"] and "(modified)" in named):
            wrong.append(f"{name}: the index says {column!r}, the file records {expected!r}")
    assert not wrong, "\n".join(wrong)
