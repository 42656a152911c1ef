"""Helpers shared by the kernel-bundle tests: device lookup and isolated child processes.

Some tests register units that cannot build on their own (a build failure, an unresolved
function). Registration is process-wide, so those run in a child interpreter with a fresh
registry, where a driver crash is also reported instead of ending the test run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import sycl_ocl as sycl

ROOT = Path(__file__).resolve().parent.parent


def platform_devices(fragment: str) -> list[sycl.device]:
    """The devices of the first platform whose name contains ``fragment``."""
    for plat in sycl.platform.get_platforms():
        if fragment in plat.get_info(sycl.info.platform.name):
            return plat.get_devices()
    return []


def run_child(
    code: str, env: dict[str, str] | None = None, timeout: int = 240
) -> subprocess.CompletedProcess[str]:
    """Run Python ``code`` in a fresh interpreter (this checkout importable)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env=full_env, timeout=timeout, cwd=ROOT,
    )


def child_json(code: str, env: dict[str, str] | None = None) -> Any:
    """Run ``code`` in a child that prints one JSON line last; return it parsed."""
    done = run_child(code, env)
    assert done.returncode == 0, f"child failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def aligned_ints(dev: sycl.device) -> int:
    """How many int32 elements make the device's sub-buffer base alignment (PoCL 32, NVIDIA 128)."""
    return int(dev.get_info(sycl.info.device.mem_base_addr_align)) // 8 // 4


def intel_cpu_runtime_env(folder: Path) -> dict[str, str] | None:
    """Environment for a child that sees only Intel's CPU OpenCL runtime, when it is installed
    in this interpreter's prefix (``pip install intel-opencl-rt``); None otherwise."""
    library = Path(sys.prefix) / "lib" / "libintelocl.so"
    if not library.exists():
        return None
    (folder / "intel.icd").write_text(f"{library}\n")
    return {"OCL_ICD_VENDORS": str(folder)}
