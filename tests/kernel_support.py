"""Helpers shared by the tests: device lookup, isolated child processes, replayed kernels.

Some tests register units that cannot build on their own (a build failure, an unresolved
function). Registration is process-wide, so those run in a child interpreter with a fresh
registry, where a driver crash is also reported instead of ending the test run.
"""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import sycl_ocl as sycl

ROOT = Path(__file__).resolve().parent.parent

_REPLAY_KERNELS = string.Template("""
__kernel void ${p}halve_add(__global float* a, float s) {
    size_t i = get_global_id(0);
    a[i] = a[i] * 0.5f + s;
}
__kernel void ${p}add(__global float* a, __global const float* b) {
    size_t i = get_global_id(0);
    a[i] += b[i];
}
__kernel void ${p}reverse_groups(__global float* a, __local float* tmp) {
    size_t l = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;
    tmp[l] = a[base + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[base + l] = tmp[n - 1 - l];
}
""")


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


OCLGRIND_MARKERS = ("Invalid ", "Uninitialized", "data race")  # how Oclgrind's reports begin


def oclgrind_reports(stderr: str) -> list[str]:
    """The lines of Oclgrind's memory-error and data-race reports in a process's stderr."""
    return [line for line in stderr.splitlines() if any(m in line for m in OCLGRIND_MARKERS)]


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


def replay_kernels(prefix: str = "") -> str:
    """OpenCL C of the kernels that the command-buffer and graph tests record (``halve_add``,
    ``add``, ``reverse_groups``), their names prefixed with ``prefix``: registered kernel
    names are process-wide."""
    return _REPLAY_KERNELS.substitute(p=prefix)
