"""Cold vs warm ``get_kernel_bundle(executable)`` of the whole shipped kernel library (item 9).

For the first device of each platform, in one run:

* raw   : PyOpenCL builds every library unit from source (``Program.build``, no cache);
* cold  : ``sycl.get_kernel_bundle(executable, ctx, [dev], library ids)`` in a fresh process with an
          empty sycl_ocl disk cache;
* warm  : the same in a second fresh process (programs reloaded from the disk cache);
* memory: the same call again inside the warm process (the in-memory cache).

Every measurement runs in its own child process with the drivers' own caches off
(``POCL_KERNEL_CACHE=0``, ``CUDA_CACHE_DISABLE=1``), so "cold" really compiles.
Usage: ``python bench/bench_kernel_bundle.py [platform-regex]``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time
import pyopencl as cl
import sycl_ocl as sycl
from sycl_ocl.tools import build_cache_stats

platform = sycl.platform.get_platforms()[int(sys.argv[1])]
dev = platform.get_devices()[0]
ctx = sycl.context(dev)
ids = [k for k in sycl.library.get_kernel_ids() if sycl.is_compatible([k], dev)]
if sys.argv[2] == "raw":
    start = time.perf_counter()
    units = list({id(k._image): k._image for k in ids}.values())
    for src in units:
        cl.Program(ctx._native, src.source).build(list(src.options), cache_dir=False)
    print(json.dumps({"raw": time.perf_counter() - start, "images": len(units)}))
else:
    start = time.perf_counter()
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, [dev], ids)
    first = time.perf_counter() - start
    start = time.perf_counter()
    again = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, [dev], ids)
    memory = time.perf_counter() - start
    assert len(kb) == len(again)
    print(json.dumps({"first": first, "memory": memory, "images": len(kb), **build_cache_stats()}))
"""


def _child(index: int, mode: str, cache: str) -> dict[str, float]:
    env = dict(os.environ, SYCL_OCL_CACHE_DIR=cache, POCL_KERNEL_CACHE="0", CUDA_CACHE_DISABLE="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD), str(index), mode],
                          capture_output=True, text=True, env=env, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _platforms() -> list[str]:
    import pyopencl as cl

    return [p.name for p in cl.get_platforms()]


def main() -> int:
    pattern = re.compile(sys.argv[1] if len(sys.argv) > 1 else "", re.IGNORECASE)
    verdicts = []
    print(f"{'platform':<32} {'images':>6} {'raw s':>8} {'cold s':>8} {'warm s':>8} "
          f"{'memory s':>9} {'warm/cold':>9} {'cold/raw':>8}  warm <= 5% cold")
    for index, name in enumerate(_platforms()):
        if not pattern.search(name):
            continue
        with tempfile.TemporaryDirectory(prefix="sycl_ocl_bench_") as cache:
            raw = _child(index, "raw", cache)
            cold = _child(index, "bundle", cache)
            warm = _child(index, "bundle", cache)
        assert warm["disk_misses"] == 0, f"the warm process compiled {warm['disk_misses']} images"
        ratio = warm["first"] / cold["first"]
        verdicts.append(ratio <= 0.05)
        print(f"{name[:32]:<32} {cold['images']:>6} {raw['raw']:>8.3f} {cold['first']:>8.3f} "
              f"{warm['first']:>8.3f} {warm['memory']:>9.5f} {ratio:>9.2%} "
              f"{cold['first'] / raw['raw']:>8.2f}  {'yes' if verdicts[-1] else 'no'}")
    print("raw: PyOpenCL builds; cold/warm: first get_kernel_bundle in a new process with an "
          "empty/filled disk cache; memory: the same call again in the warm process")
    return 0 if verdicts else 1


if __name__ == "__main__":
    sys.exit(main())
