"""The pytest plugin of a category's child process (``pytest -p conformance.plugin``).

It provides the fixtures every category uses (``device``: the device under test, which the
runner selects through ``SYCL_OCL_DEVICE``; ``queue``), and streams what happens to the file
named by ``SYCL_OCL_CONFORMANCE_STREAM``, one JSON object per line, flushed as it goes: the
collected tests, the start of each test, each result. The runner reads the stream while the
child runs, so a test that crashes or hangs the driver is known by name even when the process
dies with it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import IO, Any

import pytest

import sycl_ocl as sycl

from .scenarios import ids_of

STREAM_ENV = "SYCL_OCL_CONFORMANCE_STREAM"

_stream: IO[str] | None = None
_results: dict[str, dict[str, Any]] = {}
_observed: list[str] = []  # the errc names the current test saw raised (support.raises)


def observe(code: sycl.errc) -> None:
    """Record an errc the current test observed, for the report's ``errc`` column."""
    _observed.append(code.name)


def _emit(**record: Any) -> None:
    if _stream is not None:
        _stream.write(json.dumps(record) + "\n")
        _stream.flush()


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def device() -> sycl.device:
    """The device under test: the one device the runner's device pattern selects."""
    return sycl.device()


@pytest.fixture
def queue(device: sycl.device) -> Iterator[sycl.queue]:
    """A queue on the device under test; its asynchronous errors fail the test."""
    q = sycl.queue(device)
    yield q
    q.wait_and_throw()


# --- hooks -----------------------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    global _stream
    config.addinivalue_line("markers", "scenarios(*ids): scenario ids checked besides those in the name")
    path = os.environ.get(STREAM_ENV)
    if path:
        _stream = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole session


def _describe(item: pytest.Item) -> dict[str, Any]:
    marker = item.get_closest_marker("scenarios")
    fn = getattr(item, "function", None)
    doc = (getattr(fn, "__doc__", None) or "").strip().splitlines()
    return {
        "nodeid": item.nodeid,
        "name": item.name,
        "ids": ids_of(item.name, tuple(marker.args) if marker else ()),
        "title": doc[0] if doc else item.name,
    }


def pytest_collection_finish(session: pytest.Session) -> None:
    label = (
        sycl.device().get_platform().get_info(sycl.info.platform.name).strip()
        + " / "
        + sycl.device().get_info(sycl.info.device.name).strip()
    )
    _emit(event="collected", device=label, tests=[_describe(i) for i in session.items])


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    _observed.clear()
    _results[nodeid] = {"status": "passed", "duration": 0.0}
    _emit(event="start", nodeid=nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, sycl.exception):
        observe(call.excinfo.value.code())
    return outcome


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    result = _results.setdefault(report.nodeid, {"status": "passed", "duration": 0.0})
    result["duration"] += report.duration
    if hasattr(report, "wasxfail"):
        if report.skipped:
            result.update(status="xfailed", reason=report.wasxfail)
        return  # a non-strict xpass counts as passed
    if report.skipped:
        result.update(status="skipped", reason=_skip_reason(report))
    elif report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1]
        if report.when != "call":
            message = f"in {report.when}: {message}"
        result.update(status="failed", message=message, details=report.longreprtext[-6000:])


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    result = _results.pop(nodeid, {"status": "passed", "duration": 0.0})
    if _observed:
        result["errc"] = _observed[-1]
    _emit(event="result", nodeid=nodeid, **result)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _emit(event="finished", exitstatus=int(exitstatus))
