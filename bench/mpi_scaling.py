"""MPI Jacobi's weak scaling against its raw twin (issue 31): ``python -m bench.mpi_scaling
[--ranks 1 2 4] [--sides 2048 4096 8192] [--iterations N] [--repeat N] [--json PATH]``.

For each grid per rank (``side`` x ``side`` doubles) and each number of ranks, runs
examples/mpi_jacobi.py (explicit copies), the same with ``--graphs``, ``--host-accessors`` and
``--two-queues``, and bench/mpi_jacobi_raw.py (``--raw-variants``: also with ``--pinned`` and with
``--two-queues --pinned``) under the ``mpiexec`` beside this interpreter, ``--repeat`` times in
turn, one GPU per rank (PoCL's CPU devices where there is no GPU: set ``POCL_DEVICES``). Prints
the median seconds per iteration of each, its ratio to the raw twin's at the same ranks, and
the weak-scaling efficiency (one rank's time over N ranks' time, per program); ``--json``
writes every run's JSON line and the summary. ``--quick`` runs 1 and 2 ranks on a small grid.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = {
    "sycl_ocl copies": ["examples/mpi_jacobi.py"],
    "sycl_ocl graphs": ["examples/mpi_jacobi.py", "--graphs"],
    "sycl_ocl host accessors": ["examples/mpi_jacobi.py", "--host-accessors"],
    "sycl_ocl two queues": ["examples/mpi_jacobi.py", "--two-queues"],
    "raw pyopencl": ["bench/mpi_jacobi_raw.py"],
}
# The raw twin's variants (--raw-variants): where the exchange's time goes (docs/performance.md).
RAW_VARIANTS = {
    "raw pinned": ["bench/mpi_jacobi_raw.py", "--pinned"],
    "raw two queues, pinned": ["bench/mpi_jacobi_raw.py", "--two-queues", "--pinned"],
}
LIMIT_S = 300


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.mpi_scaling", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sides", type=int, nargs="+", default=[2048, 4096, 8192])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--quick", action="store_true", help="1 and 2 ranks, 64 x 256 per rank, once")
    parser.add_argument("--raw-variants", action="store_true",
                        help="also the raw twin with pinned host rows, and with two queues")
    args = parser.parse_args(argv)
    if args.quick:
        args.ranks, args.sides, args.iterations, args.repeat = [1, 2], [0], 5, 1
    return args


def _run(mpiexec: str, ranks: int, program: list[str], side: int, iterations: int) -> dict[str, Any]:
    rows, cols = (64, 256) if side == 0 else (side, side)
    command = [mpiexec, "-n", str(ranks), sys.executable, *program, "--rows", str(rows), "--cols", str(cols),
               "--iterations", str(iterations), "--no-check"]
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    env = dict(os.environ, PYTHONPATH=path)
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=LIMIT_S)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or len(lines) != 1:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    record: dict[str, Any] = json.loads(lines[0])
    return record


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    mpiexec = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
    if mpiexec is None:
        raise SystemExit("no mpiexec: pip install 'sycl_ocl[mpi]'")
    programs = {**PROGRAMS, **(RAW_VARIANTS if args.raw_variants else {})}
    runs: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    for side in args.sides:
        medians: dict[str, dict[int, float]] = {name: {} for name in programs}
        for ranks in args.ranks:
            samples: dict[str, list[float]] = {name: [] for name in programs}
            for _ in range(args.repeat):
                for name, program in programs.items():
                    record = _run(mpiexec, ranks, program, side, args.iterations)
                    runs.append({"program": name, **record})
                    samples[name].append(record["per_iteration_s"])
            for name, values in samples.items():
                medians[name][ranks] = statistics.median(values)
        grid = "64x256" if side == 0 else f"{side}^2"
        summary[grid] = {}
        print(f"grid per rank {grid}, {args.iterations} iterations, median of {args.repeat}:")
        for name, by_ranks in medians.items():
            raw = medians["raw pyopencl"]
            one = by_ranks[min(by_ranks)]
            rows = {ranks: {"ms_per_iteration": t * 1e3, "ratio_to_raw": t / raw[ranks],
                            "weak_scaling_efficiency": one / t} for ranks, t in by_ranks.items()}
            summary[grid][name] = rows
            print(f"  {name:<24} " + "  ".join(
                f"{ranks} rank(s) {r['ms_per_iteration']:.4g} ms (x{r['ratio_to_raw']:.2f} raw, "
                f"eff {r['weak_scaling_efficiency']:.2f})" for ranks, r in rows.items()), flush=True)
        if args.json:
            args.json.write_text(json.dumps({"summary": summary, "runs": runs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
