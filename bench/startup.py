"""``import sycl_ocl`` against ``import pyopencl``: whole interpreter processes, wall time.

``python`` (an interpreter that imports nothing) is listed for reference. The child imports the
same sycl_ocl as this process. The children write and reuse bytecode in one private cache
directory (the warm-up fills it), as an installed package has its bytecode: a checkout run with
``PYTHONDONTWRITEBYTECODE`` would otherwise compile every sycl_ocl source in every sample.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import sycl_ocl

from .harness import Benchmark, Env

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

_PACKAGE_ROOT = str(Path(sycl_ocl.__file__).resolve().parent.parent)


@functools.cache
def _bytecode_cache() -> tempfile.TemporaryDirectory[str]:
    """The children's bytecode cache, one for all of them, removed at exit."""
    return tempfile.TemporaryDirectory(prefix="sycl_ocl-bench-")


def _process(statement: str) -> Callable[[Env], Callable[[], float]]:
    def factory(env: Env) -> Callable[[], float]:
        path = os.pathsep.join(p for p in (_PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")) if p)
        child_env = dict(os.environ, PYTHONPATH=path, PYTHONPYCACHEPREFIX=_bytecode_cache().name)
        child_env.pop("PYTHONDONTWRITEBYTECODE", None)

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
     "python": _process("pass"),
     # what a bare import leaves to the first use: the runtime (docs/performance.md, "Import time")
     "sycl_ocl + runtime": _process("import sycl_ocl; sycl_ocl.queue")},
    target="import sycl_ocl <= 1.2",
))
