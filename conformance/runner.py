"""Running one category for one device in child processes, so that the driver cannot end the run.

The child is ``pytest`` with :mod:`conformance.plugin`, restricted to the device under test by
``SYCL_OCL_DEVICE``. The runner follows the child's result stream: a child that dies (a
segmentation fault in the driver) or runs past a time limit is killed, the test it was running
becomes a ``crashed`` or ``timed out`` row, and a new child runs the tests that are left.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .plugin import STREAM_ENV
from .report import Row

ROOT = Path(__file__).resolve().parent.parent  # the directory that holds the package
DEVICE_FILTER_ENV = "SYCL_OCL_DEVICE"
DEVICE_SELECTOR_ENV = "SYCL_OCL_DEVICE_SELECTOR"
OUTPUT_KEPT = 6000  # characters of a child's output kept for a crashed or failed row
_POLL_S = 0.05
_OUT_OF_TIME = "the category's time limit ran out"

Event = dict[str, Any]


@dataclass(frozen=True)
class Limits:
    """Seconds a category may take in all, and one test at most."""

    category_s: float
    scenario_s: float


@dataclass
class Child:
    """What one child process reported before it ended."""

    tests: list[Event] | None = None
    device: str | None = None
    results: dict[str, Event] = field(default_factory=dict)
    running: str | None = None
    killed: str | None = None  # why the runner killed it
    returncode: int = 0
    output: str = ""


def run_category(
    name: str, path: Path, label: str, selector: str, limits: Limits, on_event: Callable[[Event], None],
    only: str = "",
) -> list[Row]:
    """Run ``path`` (one category file) on the device ``label`` that the filter string ``selector``
    selects; one row per test (``only``: a pytest ``-k`` expression, the tests it names)."""
    tests: dict[str, Event] = {}
    rows: dict[str, Row] = {}
    start = time.monotonic()
    while True:
        budget = limits.category_s - (time.monotonic() - start)
        child = _run_child(path, label, selector, list(rows), budget, limits.scenario_s, on_event, only)
        if child.tests is not None and not tests:
            tests = {t["nodeid"]: t for t in child.tests}
        if child.device is not None and child.device != label:
            return [_category_row(name, "failed", f"the tests ran on {child.device!r}, not {label!r}", child)]
        for nodeid, result in child.results.items():
            rows[nodeid] = _row(name, tests[nodeid], result)
        if child.running is not None:
            status = "timed out" if child.killed else "crashed"
            rows[child.running] = _row(
                name,
                tests[child.running],
                {
                    "status": status,
                    "message": child.killed or _death(child.returncode),
                    "details": child.output,
                },
            )
        if child.tests is None or (not tests and child.returncode not in (0, 5)):
            status = "crashed" if child.returncode < 0 else "failed"
            return [_category_row(name, status, "the category could not be collected", child)]
        pending = [n for n in tests if n not in rows]
        if not pending:
            break
        if child.running is None or child.killed == _OUT_OF_TIME:
            reason = child.killed or _death(child.returncode)
            for nodeid in pending:
                rows[nodeid] = _row(
                    name, tests[nodeid], {"status": "skipped", "reason": f"not run: {reason}"}
                )
            break
        # The child crashed or hung in a test, which now has its row: run the rest in a new one.
    return [rows[n] for n in tests]


def _death(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"the process died from {signal.Signals(-returncode).name}"
        except ValueError:
            return f"the process died from signal {-returncode}"
    return f"the process exited with status {returncode}"


def _row(category: str, test: Event, result: Event) -> Row:
    return Row(
        category=category,
        test=test["name"],
        ids=list(test["ids"]),
        title=test["title"],
        status=result["status"],
        duration_s=round(float(result.get("duration", 0.0)), 4),
        errc=result.get("errc"),
        reason=result.get("reason"),
        message=result.get("message"),
        details=result.get("details"),
    )


def _category_row(category: str, status: str, message: str, child: Child) -> Row:
    return Row(
        category=category,
        test=f"{category} (process)",
        ids=[],
        title=message,
        status=status,
        message=message,
        details=child.output,
    )


def _command(path: Path, deselect: list[str], only: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "conformance.plugin",
        "-p",
        "no:cacheprovider",
        "-c",
        os.devnull,
        "--rootdir",
        str(path.parent),
        "--confcutdir",
        str(path.parent),
        "-o",
        "addopts=",
        str(path),
        *(f"--deselect={n}" for n in deselect),
        *(("-k", only) if only else ()),
    ]


def _run_child(
    path: Path,
    label: str,
    selector: str,
    deselect: list[str],
    budget: float,
    scenario_s: float,
    on_event: Callable[[Event], None],
    only: str,
) -> Child:
    child = Child()
    with tempfile.TemporaryDirectory(prefix="sycl_ocl_conformance_") as tmp:
        stream, output = Path(tmp, "stream.jsonl"), Path(tmp, "output.txt")
        env = {
            **os.environ,
            STREAM_ENV: str(stream),
            # The child sees one device: the first with the label (two identical GPUs share a
            # label; the filter string tells them apart), so its default context holds that device.
            DEVICE_FILTER_ENV: f"^{re.escape(label)}$",
            DEVICE_SELECTOR_ENV: selector,
            "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        }
        with output.open("w") as sink:
            proc = subprocess.Popen(
                _command(path, deselect, only),
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=ROOT,
                start_new_session=True,
            )
            events = _Follower(stream)
            started = test_started = time.monotonic()
            while proc.poll() is None:
                for ev in events:
                    test_started = _handle(child, ev, on_event) or test_started
                now = time.monotonic()
                if now - started > budget:
                    child.killed = _OUT_OF_TIME
                elif child.running is not None and now - test_started > scenario_s:
                    child.killed = f"the test ran longer than {scenario_s:.0f} s"
                if child.killed:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    break
                time.sleep(_POLL_S)  # the runner polls its child; tests never sleep
            for ev in events:
                _handle(child, ev, on_event)
            child.returncode = proc.returncode
        child.output = _kept_output(output.read_text(errors="replace"))
    return child


def _kept_output(text: str) -> str:
    """What a row keeps of a child's output: from Python's fatal-error report on (its stack
    starts with the frame that crashed, such as the driver call), else the end; at most
    ``OUTPUT_KEPT`` characters, the middle left out."""
    fatal = text.find("Fatal Python error")
    if fatal >= 0:
        text = text[fatal:]
    if len(text) <= OUTPUT_KEPT:
        return text
    half = OUTPUT_KEPT // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters left out ...]\n{text[-half:]}"


def _handle(child: Child, ev: Event, on_event: Callable[[Event], None]) -> float | None:
    """Apply one stream event; returns the start time of a test that just started."""
    kind = ev["event"]
    on_event(ev)
    if kind == "collected":
        child.tests, child.device = ev["tests"], ev["device"]
    elif kind == "start":
        child.running = ev["nodeid"]
        return time.monotonic()
    elif kind == "result":
        child.results[ev["nodeid"]] = ev
        child.running = None
    return None


class _Follower(Iterator[Event]):
    """The complete lines appended to the stream file since the last read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.pending: list[Event] = []

    def __iter__(self) -> Iterator[Event]:
        self._read()
        return self

    def __next__(self) -> Event:
        if not self.pending:
            raise StopIteration
        return self.pending.pop(0)

    def _read(self) -> None:
        if not self.path.exists():
            return
        with self.path.open("rb") as f:
            f.seek(self.offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        self.pending += [json.loads(line) for line in data[:end].splitlines() if line.strip()]
