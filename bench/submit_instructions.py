"""Instructions per held submit, counted by valgrind's callgrind: a figure a loaded machine
cannot blur, for comparing two versions of the submit path.

The submitting thread's instructions are counted for 200 and for 2,200 submits of the
two-accessor command group of ``held_submit`` (the queue waits on a user event meanwhile, so
no kernel runs); their difference over 2,000 is the cost of one submit. Only that thread is
counted: PoCL's worker threads and the scheduler's threads are left out.

Run: ``python bench/submit_instructions.py [CHECKOUT ...]``: each CHECKOUT is a directory
holding a ``sycl_ocl`` package (``git archive <commit> sycl_ocl kernels_cl | tar -x -C DIR``);
none: the installed sycl_ocl.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SMALL, LARGE = 200, 2200


def held_submits(count: int) -> None:
    """The measured program: ``count`` held submits after a warm-up."""
    os.environ.setdefault("POCL_DEVICES", "pthread")
    import numpy as np
    import pyopencl as cl

    import sycl_ocl as sycl

    sycl.register_kernel_source("__kernel void bench_add(__global float* a, __global const float* b) "
                                "{ size_t i = get_global_id(0); a[i] += b[i]; }")
    dev = next(p for p in sycl.platform.get_platforms()
               if "Portable" in p.get_info(sycl.info.platform.name)).get_devices()[0]
    q = sycl.queue(dev)
    a, b = sycl.buffer(np.zeros(64, np.float32)), sycl.buffer(np.ones(64, np.float32))

    def cgf(h: sycl.handler) -> None:
        h.parallel_for(64, "bench_add", sycl.accessor(a, h), sycl.accessor(b, h, sycl.read_only))

    q.submit(cgf).wait()
    gate = cl.UserEvent(sycl.get_native(q.get_context()))

    def held(h: sycl.handler) -> None:  # later commands follow it through the buffers
        h.depends_on(sycl.make_event(gate, q.get_context()))
        cgf(h)

    q.submit(held)
    for _ in range(count):
        q.submit(cgf)
    gate.set_status(cl.command_execution_status.COMPLETE)
    q.wait()


def main_thread_instructions(count: int, checkout: str | None) -> int:
    """The instructions callgrind counts on the main thread of ``held_submits(count)``."""
    env = dict(os.environ)
    if checkout:
        env["PYTHONPATH"] = checkout
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--separate-threads=yes",
             f"--callgrind-out-file={out}/cg.%p", sys.executable, __file__, "--child", str(count)],
            env=env, check=True, capture_output=True,
        )
        (main,) = Path(out).glob("cg.*-01")
        found = re.search(r"^summary: (\d+)", main.read_text(), re.MULTILINE)
        assert found, f"no summary in {main}"
        return int(found.group(1))


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        held_submits(int(sys.argv[2]))
        return
    checkouts: list[str | None] = [*sys.argv[1:]] or [None]
    for checkout in checkouts:
        small = main_thread_instructions(SMALL, checkout)
        large = main_thread_instructions(LARGE, checkout)
        print(f"{checkout or 'installed sycl_ocl'}: {(large - small) / (LARGE - SMALL):,.0f} "
              "instructions per held submit")


if __name__ == "__main__":
    main()
