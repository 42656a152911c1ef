"""What the categories share: expected errors, feature checks, gates and known defects."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sycl_ocl as sycl
from sycl_ocl.usm import alloc
from sycl_ocl.usm.kinds import NEEDS as USM_ASPECT

from .plugin import observe

GATE_TIMEOUT_S = 60  # a gate opens long before this; the bound only stops a broken test hanging


@contextmanager
def raises(code: sycl.errc) -> Iterator[pytest.ExceptionInfo[sycl.exception]]:
    """Expect a ``sycl.exception`` with ``code``; the report records the errc observed."""
    with pytest.raises(sycl.exception) as info:
        yield info
    observe(info.value.code())
    assert info.value.code() is code, f"expected errc.{code.name}, got {info.value}"


def label(dev: sycl.device) -> str:
    """The "platform / device" text of a device."""
    platform_name = dev.get_platform().get_info(sycl.info.platform.name).strip()
    return f"{platform_name} / {dev.get_info(sycl.info.device.name).strip()}"


def needs(dev: sycl.device, *aspects: sycl.aspect) -> None:
    """Skip, saying why, unless the device has every aspect."""
    missing = [a.name for a in aspects if not dev.has(a)]
    if missing:
        pytest.skip(f"the device lacks aspect(s) {', '.join(missing)}")


def usm_refused(q: sycl.queue, kind: alloc) -> None:
    """Check that allocating a USM kind the device lacks raises errc.feature_not_supported."""
    with raises(sycl.errc.feature_not_supported):
        getattr(sycl, f"malloc_{kind.name}")(64, q)


def needs_usm_kind(q: sycl.queue, kind: alloc) -> None:
    """Skip unless the device backs the USM ``kind``, after checking that it is refused."""
    if not q.get_device().has(USM_ASPECT[kind]):
        usm_refused(q, kind)
        pytest.skip(f"the device lacks aspect.{USM_ASPECT[kind].name} (checked: allocating "
                    f"{kind.name} memory raises feature_not_supported)")


def needs_state(dev: sycl.device, state: sycl.bundle_state) -> None:
    """Skip, saying why, unless the device can hold bundles in ``state`` (§4.11.7)."""
    if state is sycl.bundle_state.input:
        needs(dev, sycl.aspect.online_compiler)
    elif state is sycl.bundle_state.object:
        needs(dev, sycl.aspect.online_compiler, sycl.aspect.online_linker)


def aligned_elements(dev: sycl.device, itemsize: int = 4) -> int:
    """Elements of ``itemsize`` bytes in the device's ``mem_base_addr_align``: the smallest
    non-zero offset a sub-buffer used on the device may start at (512 bytes on NVIDIA GPUs)."""
    return max(1, dev.get_info(sycl.info.device.mem_base_addr_align) // 8 // itemsize)


def other_devices(dev: sycl.device) -> list[sycl.device]:
    """The other root devices of the device's platform."""
    return [d for d in dev.get_platform().get_devices() if d != dev]


RESULTS = Path(__file__).resolve().parent / "results"
FROM_CHECKOUT = (RESULTS.parent.parent / ".git").exists()
_REPRODUCER = re.compile(r"conformance/results/([\w.-]+/[\w.-]+\.py)")


def reproducers(reason: str, from_checkout: bool = FROM_CHECKOUT) -> str:
    """``reason`` with each reproducer it names (``conformance/results/<driver>/<script>``) as a
    path its reader can open: as written where the suite runs from a checkout (the committed
    reports), else the script installed with the suite."""
    return reason if from_checkout else _REPRODUCER.sub(lambda m: str(RESULTS / m.group(1)), reason)


def known_defect(request: pytest.FixtureRequest, dev: sycl.device, pattern: str, reason: str) -> None:
    """Expect this test to fail on devices whose label matches ``pattern`` (a driver defect).

    Strict: if the driver is fixed the test passes, which reports as a failure to update. The
    reason names the defect's reproducer (``reproducers``).
    """
    if re.search(pattern, label(dev), re.IGNORECASE):
        request.applymarker(pytest.mark.xfail(reason=reproducers(reason), strict=True))


class Gate:
    """A host task that holds a queue's later work until the test opens it (no sleeps)."""

    def __init__(self) -> None:
        self._open = threading.Event()
        self.started = threading.Event()

    def task(self, body: Callable[[], Any] | None = None) -> Callable[[], None]:
        """A host-task body that waits for the gate, then runs ``body``."""

        def run() -> None:
            self.started.set()
            self._open.wait(GATE_TIMEOUT_S)
            if body is not None:
                body()

        return run

    def submit(self, q: sycl.queue, *accessors: Callable[[sycl.handler], Any]) -> sycl.event:
        """Submit a gated host task holding accessors made by ``accessors(h)``."""

        def cgf(h: sycl.handler) -> None:
            for make in accessors:
                make(h)
            h.host_task(self.task())

        return q.submit(cgf)

    def open(self) -> None:
        """Let the gated task finish."""
        self._open.set()


HOLD_S = 0.25  # a command wrongly free to run starts within this (a free pool thread takes it)


class Hold:
    """Gates for checks of ordering that fail every time the order is broken: each gate (a
    host task) stays shut until ``broken`` is set or its ``stages`` of ``HOLD_S`` passed. What
    must come after a gate sets ``broken`` when it happens (a dependent's body runs, a wait
    returns) and records the gates' statuses then: a runtime that lets it happen early does so
    while the gates are shut, so the record shows them incomplete; a working one waits only
    for the bound."""

    def __init__(self) -> None:
        self.broken = threading.Event()

    def gate(self, q: sycl.queue, stages: int = 1) -> sycl.event:
        """A host task shut until ``broken`` is set or ``stages`` x ``HOLD_S`` passed."""
        return q.submit(lambda h: h.host_task(lambda: self.broken.wait(stages * HOLD_S)))

    def record(self, events: list[sycl.event], into: list[list[sycl.info.event_command_status]]) -> None:
        """Record ``events``' statuses now, then let every gate open."""
        into.append([status(e) for e in events])
        self.broken.set()

    def body(self, events: list[sycl.event],
             into: list[list[sycl.info.event_command_status]]) -> Callable[[], None]:
        """A host-task body that records ``events``' statuses when it runs."""
        return lambda: self.record(events, into)


def status(ev: sycl.event) -> sycl.info.event_command_status:
    """An event's command execution status."""
    return ev.get_info(sycl.info.event.command_execution_status)


def run_1d(q: sycl.queue, kernel: Any, data: np.ndarray, *args: Any, bundle: Any = None) -> np.ndarray:
    """Run ``kernel(accessor, *args)`` over ``data``'s elements; return the data afterwards."""
    out = data.copy()
    with sycl.buffer(out) as buf:

        def cgf(h: sycl.handler) -> None:
            if bundle is not None:
                h.use_kernel_bundle(bundle)
            h.parallel_for(sycl.range(out.size), kernel, sycl.accessor(buf, h), *args)

        q.submit(cgf).wait_and_throw()
    return out


def child(code: str, timeout: float = 300) -> Any:
    """Run ``code`` in a fresh interpreter on the device under test; return the JSON it prints last.

    For scenarios that depend on the application's whole kernel set (a fresh process starts with
    none) or register kernels that must not reach the category's other tests.
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )
    if done.returncode < 0:
        how = f"died from {signal.Signals(-done.returncode).name} (the driver crashed it)"
    else:
        how = f"failed (exit status {done.returncode})"
    assert done.returncode == 0, f"the child process {how}:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])
