"""Feedback on long builds (SYCL 2020 §4.11.7, §4.11.11): a cold build of several units shows
which unit is being built and how many are left, on a terminal only.

The child runs with its stderr on a pseudo-terminal (``pty``), and again on a pipe, with an
empty build cache so every unit is compiled.
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from kernel_support import ROOT, run_child

# A driver may log a successful build (Intel's CPU runtime names the kernels it vectorized);
# PyOpenCL's CompilerWarning about that would share the terminal's lines with the progress.
BUILD_THREE_UNITS = """
import sys, warnings
import pyopencl as cl
import sycl_ocl as sycl
warnings.simplefilter("ignore", cl.CompilerWarning)
folder = sys.argv[1]
ids = []
for i in range(3):
    path = f"{folder}/unit_{i}.cl"
    with open(path, "w") as f:
        f.write(f"__kernel void progress_{i}(__global int *a) {{ a[0] = {i}; }}")
    ids += sycl.register_kernel_file(path)
ctx = sycl.queue().get_context()
sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=ids)
sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=ids)  # cached: silent
sycl.compile(sycl.get_kernel_bundle(sycl.bundle_state.input, ctx, kernel_ids=ids))
print("done")
"""


def _env(cache: Path) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "SYCL_OCL_CACHE_DIR": str(cache), "PYTHONPATH": path}


def _stderr_on_a_terminal(tmp_path: Path, columns: int = 0) -> tuple[int, str]:
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    child = subprocess.Popen(
        [sys.executable, "-c", BUILD_THREE_UNITS, str(tmp_path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=secondary,
        env=_env(tmp_path / "cache"), cwd=ROOT,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            data = os.read(primary, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(primary)
    return child.wait(timeout=240), b"".join(chunks).decode(errors="replace")


def test_a_cold_build_of_several_units_shows_each_unit_and_how_many_are_left(tmp_path: Path) -> None:
    status, text = _stderr_on_a_terminal(tmp_path)
    assert status == 0, text
    for i, left in ((1, 2), (2, 1), (3, 0)):
        assert f"building unit {i} of 3 ({left} left): {tmp_path}/unit_{i - 1}.cl" in text
    # Once for the build, once for the compile; the cached second build prints nothing.
    assert text.count("sycl_ocl: built 3 of 3 units in ") == 2, text


def test_a_progress_line_fits_the_terminal(tmp_path: Path) -> None:
    status, text = _stderr_on_a_terminal(tmp_path, columns=40)
    assert status == 0, text
    lines = [line for line in text.replace("\r\x1b[K", "\n").splitlines() if line.strip()]
    assert "sycl_ocl: building unit 1 of 3 (2 le..." in lines
    assert all(len(line) < 40 for line in lines), lines


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    code = BUILD_THREE_UNITS.replace("sys.argv[1]", repr(str(tmp_path)))
    done = run_child(code, {"SYCL_OCL_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert "sycl_ocl:" not in done.stderr
