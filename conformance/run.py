"""Run the conformance suite against OpenCL devices and write one report per device.

Each category (``categories/test_<name>.py``) runs in a child ``pytest`` process restricted to
one device through ``SYCL_OCL_DEVICE``; a crash or a time-out of that process is reported as a
crashed category, and the run goes on.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from report import Report, rows_from_junit, write  # noqa: E402


def list_devices(pattern: str) -> list[dict[str, object]]:
    """Identity of every device matching ``pattern``, read in a child process."""
    env = dict(os.environ, SYCL_OCL_DEVICE=pattern)
    out = subprocess.run(
        [sys.executable, str(HERE / "device_info.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if out.returncode != 0:
        raise SystemExit(f"could not list the devices:\n{out.stderr}")
    devices: list[dict[str, object]] = json.loads(out.stdout)
    return devices


def categories(directory: Path, selected: list[str], exclude_file: Path | None) -> list[str]:
    """The category names to run, in a stable order."""
    names = sorted(p.stem.removeprefix("test_") for p in directory.glob("test_*.py"))
    if selected:
        unknown = set(selected) - set(names)
        if unknown:
            raise SystemExit(f"unknown categories {sorted(unknown)}; known: {names}")
        names = [n for n in names if n in selected]
    if exclude_file:
        excluded = {line.strip() for line in exclude_file.read_text().splitlines() if line.strip()}
        names = [n for n in names if n not in excluded]
    return names


def run_category(
    name: str, label: str, args: argparse.Namespace, work: Path
) -> tuple[Path, str | None, float]:
    """Run one category for one device; return its JUnit path, crash text and duration."""
    junit = work / f"{name}.xml"
    env = dict(os.environ, SYCL_OCL_DEVICE=f"^{re.escape(label)}$")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={junit}",
        "--rootdir",
        str(HERE),
        "-c",
        os.devnull,
        "--confcutdir",
        str(HERE),
        str(args.categories_dir / f"test_{name}.py"),
    ]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, env=env, cwd=HERE, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return junit, f"timed out after {args.timeout:.0f} s", time.monotonic() - start
    seconds = time.monotonic() - start
    crash = None
    if proc.returncode < 0:
        crash = f"the process died from {signal.Signals(-proc.returncode).name}"
    elif proc.returncode not in (0, 1, 5) or not junit.exists():
        crash = f"pytest exited with {proc.returncode}: {proc.stdout[-1500:]}{proc.stderr[-1500:]}"
    return junit, crash, seconds


def run_device(device: dict[str, object], names: list[str], args: argparse.Namespace) -> Report:
    """Run every category on one device."""
    report = Report(
        device=device,
        commit=args.commit_hash,
        started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    )
    label = str(device["label"])
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            junit, crash, seconds = run_category(name, label, args, Path(tmp))
            rows = rows_from_junit(junit, name) if junit.exists() else []
            report.add_category(name, rows, crash, round(seconds, 2))
            status = report.categories[name]["status"]
            print(f"  {name:24s} {status:8s} {seconds:6.1f} s", flush=True)
    return report


def _git_commit() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(HERE), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; exits 1 when a scenario failed or a category crashed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="", help="regex over 'platform / device'")
    parser.add_argument("--list-devices", action="store_true")
    parser.add_argument("--category", action="append", default=[])
    parser.add_argument("--exclude-file", type=Path)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per category")
    parser.add_argument("--report-dir", type=Path, default=Path("reports"))
    parser.add_argument("--commit-hash", default=_git_commit())
    parser.add_argument("--categories-dir", type=Path, default=HERE / "categories")
    args = parser.parse_args(argv)
    devices = list_devices(args.device)
    if args.list_devices or not devices:
        for dev in devices:
            print(dev["label"])
        if not devices:
            print(f"no device matches {args.device!r}", file=sys.stderr)
        return 0 if devices else 2
    names = categories(args.categories_dir, args.category, args.exclude_file)
    failed = False
    for device in devices:
        print(f"{device['label']}:", flush=True)
        report = run_device(device, names, args)
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(device["label"])).strip("_")
        paths = write(report, args.report_dir, stem)
        print(f"  {report.summary()} -> {', '.join(map(str, paths))}")
        failed |= any(c["status"] != "passed" for c in report.categories.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
