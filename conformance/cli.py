"""``python -m conformance``: run the conformance suite on OpenCL devices, one report per device."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from . import scenarios
from .coverage import print_coverage
from .progress import Progress
from .report import NOT_APPLICABLE, Report, Row, category_status, installed_version, write
from .runner import ROOT, Limits, run_category

HERE = Path(__file__).resolve().parent
# Settings that change what a run tests, recorded in its report.
_ENVIRONMENT = (
    "POCL_DEVICES",
    "OCL_ICD_VENDORS",
    "SYCL_OCL_CONFORMANCE_MAX_ALLOC_MB",
    "SYCL_OCL_DISABLE_CACHE",
)


def _prog() -> str:
    """How the suite was started: the installed ``sycl-ocl-conformance`` or ``python -m conformance``."""
    name = Path(sys.argv[0]).name
    return name if name == "sycl-ocl-conformance" else "python -m conformance"


def _epilog(prog: str) -> str:
    """The categories, and how to rerun one failing scenario."""
    names = sorted(p.stem.removeprefix("test_") for p in (HERE / "categories").glob("test_*.py"))
    return (
        textwrap.fill("categories: " + ", ".join(names), 88, subsequent_indent="  ")
        + "\n\n"
        "To rerun one failing scenario, give its category and the test named in the report's\n"
        "'test' column (without the [parameters] of a parametrized test):\n"
        f"  {prog} --device REGEX --category kernel_bundle --test test_KB_71_link_error\n"
        "A failure caused by a known driver defect is an expected failure (xfailed) naming a\n"
        f"reproducer, a raw PyOpenCL script shipped under {HERE / 'results'}."
    )


def _parser() -> argparse.ArgumentParser:
    prog = _prog()
    p = argparse.ArgumentParser(
        prog=prog,
        description="SYCL 2020 conformance of OpenCL drivers through sycl_ocl, category by category.",
        epilog=_epilog(prog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--device",
        default="",
        metavar="REGEX",
        help="regular expression searched in 'platform / device' (default: every device)",
    )
    p.add_argument("--list-devices", action="store_true", help="list the devices, '>' marks the selected")
    p.add_argument(
        "--category",
        action="append",
        default=[],
        metavar="NAME",
        help="run only these categories (repeat, or separate with commas)",
    )
    p.add_argument(
        "--test",
        action="append",
        default=[],
        metavar="NAME",
        help="run only the tests whose name contains NAME (repeat for several; with --category, "
        "to rerun one failing scenario)",
    )
    p.add_argument(
        "--exclude-file",
        type=Path,
        metavar="FILE",
        help="categories to skip, one per line ('#' starts a comment)",
    )
    p.add_argument("--report-dir", type=Path, default=Path("reports"), metavar="DIR")
    p.add_argument(
        "--info-dump",
        type=Path,
        metavar="FILE",
        help="write the selected devices' identity (the CTS's --info-dump keys and more) as JSON",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        metavar="SECONDS",
        help="time limit of one category (default 900)",
    )
    p.add_argument(
        "--scenario-timeout",
        type=float,
        default=180.0,
        metavar="SECONDS",
        help="time limit of one test (default 180)",
    )
    p.add_argument(
        "--coverage",
        action="store_true",
        help="print which tests check each scenario id of SCENARIOS.md, and which ids none does",
    )
    p.add_argument("--commit-hash", default=None, help="sycl_ocl's commit (default: from git)")
    p.add_argument("--categories-dir", type=Path, default=HERE / "categories", help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0 when nothing failed, crashed or timed out; 1 otherwise; 2 for no device."""
    args = _parser().parse_args(argv)
    if args.coverage:
        print_coverage(args.categories_dir, sys.stdout)
        return 0
    devices = _devices()
    pattern = re.compile(args.device, re.IGNORECASE)
    chosen = [d for d in devices if pattern.search(d["label"])]
    if args.list_devices:
        _list(devices, chosen)
        return 0
    if not chosen:
        print(f"no device matches {args.device!r}; --list-devices shows them", file=sys.stderr)
        return 2
    if args.info_dump:
        dumps = [d["cts_info_dump"] for d in chosen]
        args.info_dump.parent.mkdir(parents=True, exist_ok=True)
        args.info_dump.write_text(json.dumps(dumps[0] if len(dumps) == 1 else dumps, indent=1) + "\n")
    names = _categories(args.categories_dir, args.category, args.exclude_file)
    ok = True
    for dev in chosen:
        report = run_device(dev, names, args)
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", dev["label"]).strip("_")
        paths = write(report, args.report_dir, stem)
        s = report.summary()
        print(
            f"  {s['passed']} passed, {s['failed']} failed, {s['crashed']} crashed, {s['timed out']} timed "
            f"out, {s['xfailed']} xfailed, {s['skipped']} skipped; {s['scenario_ids']} scenario ids; "
            f"reports: {', '.join(map(str, paths))}",
            flush=True,
        )
        ok &= report.ok()
    return 0 if ok else 1


def run_device(dev: dict[str, Any], names: list[str], args: argparse.Namespace) -> Report:
    """Run every category on one device."""
    limits = Limits(args.timeout, args.scenario_timeout)
    report = Report(device=dev, run=_run_info(args, names))
    not_applicable = [s for s in scenarios.load().values() if s.not_applicable]
    progress = Progress()
    progress.device(dev["label"], len(names))
    for name in names:
        progress.start(name)
        start = time.monotonic()
        rows = run_category(
            name, args.categories_dir / f"test_{name}.py", dev["label"], dev["filter"], limits,
            progress.event, " or ".join(args.test),
        )
        rows += [
            Row(
                category=name,
                test="(not applicable)",
                ids=[s.id],
                title=s.text,
                status="skipped",
                reason=NOT_APPLICABLE + str(s.not_applicable),
            )
            for s in not_applicable
            if s.category == name
        ]
        seconds = time.monotonic() - start
        report.add_category(name, rows, seconds)
        progress.finish(name, rows, seconds, category_status(rows))
    report.run["finished"] = _now()
    return report


def _devices() -> list[dict[str, Any]]:
    """Every device's identity, read in a child process (a driver may crash while enumerated)."""
    try:
        out = subprocess.run(
            [sys.executable, "-m", "conformance.device_info"],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        raise SystemExit("listing the OpenCL devices took more than 300 s") from None
    if out.returncode != 0:
        raise SystemExit(f"listing the OpenCL devices failed (status {out.returncode}):\n{out.stderr}")
    devices: list[dict[str, Any]] = json.loads(out.stdout)
    return devices


def _list(devices: list[dict[str, Any]], chosen: list[dict[str, Any]]) -> None:
    print(f"{len(devices)} device(s):")
    for d in devices:
        extra = (
            f" ({d['devices_with_this_label']} with this label; the first is tested)"
            if d["devices_with_this_label"] > 1
            else ""
        )
        print(f"{'>' if d in chosen else ' '} {d['device_type']:12s} {d['label']}{extra}")


def _categories(directory: Path, selected: list[str], exclude_file: Path | None) -> list[str]:
    known = sorted(p.stem.removeprefix("test_") for p in directory.glob("test_*.py"))
    wanted = [n for item in selected for n in item.split(",") if n]
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        raise SystemExit(f"unknown categories {unknown}; known: {known}")
    names = [n for n in known if n in wanted] if wanted else known
    if exclude_file:
        lines = (line.partition("#")[0].strip() for line in exclude_file.read_text().splitlines())
        excluded = {line for line in lines if line}
        names = [n for n in names if n not in excluded]
    return names


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _commit(args: argparse.Namespace) -> str:
    """The checkout's commit; an installed suite (in site-packages, perhaps inside some other
    checkout) is not the top of a git work tree, and its version is recorded instead."""
    if args.commit_hash:
        return str(args.commit_hash)
    top = _git("rev-parse", "--show-toplevel")
    if not top or Path(top).resolve() != ROOT:
        return "not run from a git checkout (see sycl_ocl_version)"
    commit = _git("rev-parse", "HEAD") or "unknown"
    if _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!*/results/*"):
        commit += " (with uncommitted changes)"
    return commit


def _run_info(args: argparse.Namespace, names: list[str]) -> dict[str, Any]:
    return {
        "implementation": "sycl_ocl",
        "sycl_ocl_commit": _commit(args),
        "sycl_ocl_version": installed_version(),
        "started": _now(),
        "command": " ".join([_prog(), *sys.argv[1:]]),
        "python_executable": sys.executable,
        "category_timeout_s": args.timeout,
        "scenario_timeout_s": args.scenario_timeout,
        "categories": names,
        "environment": {k: os.environ[k] for k in _ENVIRONMENT if k in os.environ},
    }
