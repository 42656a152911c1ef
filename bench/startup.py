"""``import sycl_ocl`` against ``import pyopencl``: whole interpreter processes, wall time.

``python`` (an interpreter that imports nothing) is listed for reference. The child imports the
same sycl_ocl as this process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import sycl_ocl

from .harness import Benchmark, Env

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

_PACKAGE_ROOT = str(Path(sycl_ocl.__file__).resolve().parent.parent)


def _process(statement: str) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        path = os.pathsep.join(p for p in (_PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")) if p)
        child_env = dict(os.environ, PYTHONPATH=path)

        def sample() -> float:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", statement], env=child_env, check=True)
            return (time.perf_counter() - start) * 1e3
        return sample
    return factory


BENCHMARKS.append(Benchmark(
    "import", "a Python process that imports the package, start to exit",
    "ms", "import pyopencl",
    {"import pyopencl": _process("import pyopencl"), "import sycl_ocl": _process("import sycl_ocl"),
     "python": _process("pass")},
    target="import sycl_ocl <= 1.2",
))
