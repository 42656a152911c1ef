"""The eager chain of the ``chain`` benchmark (1,000 dependent kernels on one buffer, then
``q.wait()``), repeated for a while on one device: a steady loop for a sampling profiler.

Run: ``py-spy record --native -r 997 --format raw -o chain.txt -- python -m bench.profile_chain
[--device REGEX] [--seconds S]`` (py-spy: ``pip install py-spy``, not a dependency). The
figures in docs/performance.md ("What stands in the way") came from it.
"""

from __future__ import annotations

import argparse
import time

import sycl_ocl as sycl

from .harness import KERNELS, Env, choose_device, filled


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="", help="a regular expression over 'platform / device'")
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args(argv)
    sycl.register_kernel_source(KERNELS)
    env = Env(choose_device(args.device))
    n = env.size(gpu=1 << 20, cpu=1 << 16, quick=1 << 12)
    q, buf = env.queue(), sycl.buffer(filled(n))

    def cgf(h: sycl.handler) -> None:
        h.parallel_for(n, "bench_halve_add", sycl.accessor(buf, h), 1.0)

    chains, spent, end = 0, 0.0, time.monotonic() + args.seconds
    while not chains or time.monotonic() < end:
        start = time.perf_counter()
        for _ in range(1000):
            q.submit(cgf)
        q.wait()
        spent += time.perf_counter() - start
        chains += 1
    print(f"{chains} chains, {spent / chains * 1e3:.2f} ms per chain")


if __name__ == "__main__":
    main()
