"""Category event (CTS tests/event): EV-02 .. EV-15."""

from __future__ import annotations

import threading

import pytest

import sycl_ocl as sycl


def _gated(q: sycl.queue) -> tuple[sycl.event, threading.Event]:
    gate = threading.Event()
    return q.submit(lambda h: h.host_task(lambda: gate.wait(30))), gate


def test_EV_02_backend() -> None:
    """get_backend() of a default event is opencl."""
    assert sycl.event().get_backend() is sycl.backend.opencl


def test_EV_04_wait_forms_block(queue: sycl.queue) -> None:
    """Member and static wait / wait_and_throw block until a host task finishes."""
    for wait in (
        lambda e: e.wait(),
        lambda e: e.wait_and_throw(),
        lambda e: sycl.event.wait([e]),
        lambda e: sycl.event.wait_and_throw([e]),
    ):
        ev, gate = _gated(queue)
        assert (
            ev.get_info(sycl.info.event.command_execution_status)
            is not sycl.info.event_command_status.complete
        )
        threading.Timer(0.05, gate.set).start()
        wait(ev)
        assert (
            ev.get_info(sycl.info.event.command_execution_status) is sycl.info.event_command_status.complete
        )


def test_EV_07_wait_and_throw_delivers_once(device: sycl.device) -> None:
    """wait_and_throw hands a host task's error to the async handler exactly once."""
    got: list[int] = []
    q = sycl.queue(device, async_handler=lambda errs: got.append(len(errs)))

    def fail() -> None:
        raise sycl.exception(sycl.errc.runtime, "on purpose")

    ev = q.submit(lambda h: h.host_task(fail))
    ev.wait_and_throw()
    ev.wait_and_throw()
    sycl.event.wait_and_throw([ev])
    assert got == [1]


def test_EV_12_profiling_order(device: sycl.device) -> None:
    """On an enable_profiling queue: command_submit <= command_start <= command_end."""
    if not device.has(sycl.aspect.queue_profiling):
        pytest.skip("the device has no queue_profiling aspect")
    q = sycl.queue(device, prop_list=[sycl.property.queue.enable_profiling()])
    ev = q.submit(lambda h: None)
    ev.wait()
    p = sycl.info.event_profiling
    submit, start, end = (
        ev.get_profiling_info(d) for d in (p.command_submit, p.command_start, p.command_end)
    )
    assert isinstance(submit, int) and submit <= start <= end


def test_EV_14_profiling_without_property_is_invalid(queue: sycl.queue) -> None:
    """get_profiling_info on a queue without enable_profiling raises errc.invalid."""
    ev = queue.submit(lambda h: None)
    ev.wait()
    with pytest.raises(sycl.exception) as info:
        ev.get_profiling_info(sycl.info.event_profiling.command_end)
    assert info.value.code() is sycl.errc.invalid


def test_EV_13_wait_list(queue: sycl.queue) -> None:
    """get_wait_list names the events a command depends on."""
    first, gate = _gated(queue)
    second = queue.submit(lambda h: h.depends_on(first))
    assert first in second.get_wait_list()
    gate.set()
    second.wait()
    assert first.get_info(sycl.info.event.command_execution_status) is sycl.info.event_command_status.complete
