"""Run the benchmark suite: ``python -m bench [--device REGEX] [--rounds N] [--json PATH]
[--only NAME ...] [--quick] [--list]``.

Every benchmark compares systems side by side in this process (see ``bench/harness.py``) and
prints medians, spread and ratios; ``--json`` writes them with the device's and the checkout's
identity. ``--quick`` uses small sizes and counts: it checks that everything runs, its figures
mean nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any

os.environ.setdefault("POCL_DEVICES", "pthread")  # one PoCL device, as the figures in docs/ assume

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from . import (
    apps,
    awkward,
    bundle,
    image,
    kernels,
    multi_device,
    reduction,
    roundtrip,
    startup,
    submit,
    triad,
    usm,
)
from .harness import KERNELS, Env, choose_device, label, report, run

# The running order: the cheap launch-bound ones first, the slow child-process ones last.
REGISTRY = [*submit.BENCHMARKS, *kernels.BENCHMARKS, *roundtrip.BENCHMARKS, *triad.BENCHMARKS,
            *reduction.BENCHMARKS, *awkward.BENCHMARKS, *image.BENCHMARKS, *usm.BENCHMARKS,
            *multi_device.BENCHMARKS, *apps.BENCHMARKS, *startup.BENCHMARKS, *bundle.BENCHMARKS]

ROOT = Path(__file__).resolve().parent.parent


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[1])
    parser.add_argument("--device", default="", help='regex over "platform / device"')
    parser.add_argument("--rounds", type=int, default=None, help="rounds per benchmark (default 7, quick 2)")
    parser.add_argument("--json", type=Path, help="write the results to this file")
    parser.add_argument("--only", action="append", default=[], help="regex over benchmark names (repeatable)")
    parser.add_argument("--quick", action="store_true", help="small sizes and counts: a check that all runs")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    return parser.parse_args(argv)


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _tree() -> dict[str, Any]:
    """The tree measured: a copy exported without ``.git`` names its commit in SYCL_OCL_COMMIT,
    since git would report whatever checkout lies above it (bench/README.md)."""
    exported = os.environ.get("SYCL_OCL_COMMIT")
    if exported:
        return {"commit": exported, "modified": False, "from": "SYCL_OCL_COMMIT",
                "imported_from": str(Path(sycl.__file__).parent)}
    return {
        "commit": _git("rev-parse", "HEAD"),
        "modified": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "imported_from": str(Path(sycl.__file__).parent),
    }


def _identity(dev: sycl.device, args: argparse.Namespace) -> dict[str, Any]:
    native: cl.Device = dev._native
    return {
        "device": {
            "label": label(dev), "platform": native.platform.name,
            "platform_version": native.platform.version,
            "name": native.name, "vendor": native.vendor, "version": native.version,
            "driver_version": native.driver_version, "type": str(dev.get_info(sycl.info.device.device_type)),
            "compute_units": native.max_compute_units,
        },
        "host": {
            "python": sys.version.split()[0], "platform": platform.platform(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "numpy": np.__version__, "pyopencl": cl.VERSION_TEXT,
            "dpctl": _version("dpctl"),
        },
        "sycl_ocl": _tree(),
        "settings": {"quick": args.quick, "rounds": args.rounds, "only": args.only,
                     "POCL_DEVICES": os.environ.get("POCL_DEVICES")},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "benchmarks": {},
    }


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    chosen = [b for b in REGISTRY if not args.only or any(re.search(p, b.name) for p in args.only)]
    if args.list:
        for benchmark in REGISTRY:
            print(f"{benchmark.name:<16} {benchmark.what}")
        return 0
    args.rounds = args.rounds or (2 if args.quick else 7)
    sycl.register_kernel_source(KERNELS)
    env = Env(choose_device(args.device), quick=args.quick)
    result = _identity(env.device, args)
    print(f"device: {result['device']['label']} (driver {result['device']['driver_version']}); "
          f"sycl_ocl {result['sycl_ocl']['commit']}; {args.rounds} rounds{' (quick)' if args.quick else ''}")
    failed = []
    for benchmark in chosen:
        try:
            record = run(benchmark, env, args.rounds)
            print(report(benchmark.name, record), flush=True)
        except Exception:
            failed.append(benchmark.name)
            record = {"error": traceback.format_exc()}
            print(f"{benchmark.name}: FAILED\n{record['error']}", flush=True)
        result["benchmarks"][benchmark.name] = record
        if args.json:
            args.json.write_text(json.dumps(result, indent=1) + "\n")
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
