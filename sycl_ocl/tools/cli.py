"""``python -m sycl_ocl trace SCRIPT [args]``: run a script as ``python -m cProfile`` does, recording
what sycl_ocl did, then write ``SCRIPT.dot``, ``SCRIPT.json`` and ``SCRIPT.png`` (docs/tracing.md);
under an MPI launcher each rank writes ``SCRIPT.rankN.*``."""

from __future__ import annotations

import argparse
import gc
import os
import runpy
import sys
from collections.abc import Sequence

from ..scheduler import DEFAULT_CAPACITY
from .recording import start_tracing, stop_tracing
from .timeline import timeline_available


def run_traced(argv: Sequence[str]) -> int:
    """Run ``trace [--out DIR] [--capacity N] SCRIPT [args]``; returns the script's exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m sycl_ocl trace",
        description="Run a Python script, recording the commands it submits; write SCRIPT.dot (the "
        "DAG), SCRIPT.json (Chrome trace) and SCRIPT.png (timeline, needs matplotlib).",
    )
    parser.add_argument("--out", default=".", help="where to write the files (default: here)")
    parser.add_argument("--capacity", type=int, default=DEFAULT_CAPACITY,
                        help=f"keep the last N commands (default: {DEFAULT_CAPACITY})")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    args = parser.parse_args(argv)
    stem = os.path.splitext(os.path.basename(args.script))[0] + _rank_suffix()
    os.makedirs(args.out, exist_ok=True)
    status = 0
    start_tracing(args.capacity, title=f"python -m sycl_ocl trace {os.path.basename(args.script)}")
    try:
        status = _run_script(args.script, args.args)
    finally:
        gc.collect()  # buffers the script dropped write back now, inside the recording
        trace = stop_tracing()
        written = trace.save(os.path.join(args.out, stem))
        note = "" if timeline_available() else " (no PNG: the timeline needs pip install 'sycl_ocl[trace]')"
        print(f"sycl_ocl trace: {len(trace.ops)} commands; wrote {', '.join(written)}{note}", file=sys.stderr)
    return status


# The variables through which launchers tell a process its rank: Open MPI, MPICH and Intel MPI
# (Hydra), PMIx, Slurm's srun, MVAPICH. Read from the environment: importing mpi4py here would
# initialize MPI for a script that may not use it.
RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK")


def _rank_suffix() -> str:
    """``.rankN`` under a launcher that gives the rank N, else nothing: one file set per rank."""
    for name in RANK_VARIABLES:
        rank = os.environ.get(name, "")
        if rank.isdigit():
            return f".rank{rank}"
    return ""


def _run_script(path: str, args: list[str]) -> int:
    """Run ``path`` as ``__main__`` with ``args``; returns its exit status."""
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as done:
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)  # as the interpreter does for sys.exit("message")
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0
