"""Fixtures of the conformance suite: the one device under test, chosen by the runner.

The runner sets ``SYCL_OCL_DEVICE`` to an exact "platform / device" pattern, so the default
selector, ``sycl.device()`` and ``sycl.queue()`` all see the device under test only.
"""

from __future__ import annotations

import pytest

import sycl_ocl as sycl


@pytest.fixture(scope="session")
def device() -> sycl.device:
    """The device under test."""
    return sycl.device()


@pytest.fixture
def queue(device: sycl.device) -> sycl.queue:
    """A queue on the device under test."""
    return sycl.queue(device)


@pytest.fixture(autouse=True)
def _scenario_metadata(request: pytest.FixtureRequest, record_property) -> None:  # type: ignore[no-untyped-def]
    """Record each scenario's title (its docstring's first line) in the JUnit XML."""
    doc = (request.function.__doc__ or "").strip().splitlines()
    record_property("title", doc[0] if doc else request.function.__name__)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Record the errc of a failing scenario's sycl.exception."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and isinstance(call.excinfo.value, sycl.exception):
        report.user_properties.append(("errc", call.excinfo.value.code().name))
