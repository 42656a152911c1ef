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
