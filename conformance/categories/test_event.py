"""Category event (CTS tests/event): EV-02 .. EV-16."""

from __future__ import annotations

import copy as pycopy
import threading

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import GATE_TIMEOUT_S, Gate, Hold, needs, raises, status

DONE = sycl.info.event_command_status.complete
(INC,) = sycl.register_kernel_source(
    "__kernel void cts_event_inc(__global int *d) { d[get_global_id(0)] += 1; }"
)


def _fail(message: str):  # type: ignore[no-untyped-def]
    def body() -> None:
        raise sycl.exception(sycl.errc.runtime, message)

    return body


def test_EV_02_backend(queue: sycl.queue) -> None:
    """get_backend() of a default event and of a command's event is opencl."""
    assert sycl.event().get_backend() is sycl.backend.opencl
    assert queue.submit(lambda h: None).get_backend() is sycl.backend.opencl


def test_EV_04_wait_forms_block(queue: sycl.queue) -> None:
    """Member and static wait / wait_and_throw block until a gated host task finishes.

    The gate stays shut until the wait returned or its bound passed, so a wait that returns
    early sees the task incomplete every time (docs/conformance.md).
    """
    for wait in (
        lambda e: e.wait(),
        lambda e: e.wait_and_throw(),
        lambda e: sycl.event.wait([e]),
        lambda e: sycl.event.wait_and_throw([e]),
    ):
        hold = Hold()
        ev = hold.gate(queue)
        seen: list[list[sycl.info.event_command_status]] = []
        wait(ev)
        hold.record([ev], seen)
        assert seen == [[DONE]], seen


@pytest.mark.parametrize("later", [0, 1], ids=["later first", "later last"])
def test_EV_05_static_wait_on_two(queue: sycl.queue, later: int) -> None:
    """The static wait on two gated events returns only when both finished.

    The gates stay shut until the wait returned or their bound passed (one of them a bound
    later, first or last in the list), so a wait that returns early, or waits for one of the
    two only, sees an incomplete event every time (docs/conformance.md).
    """
    hold = Hold()
    events = [hold.gate(queue, 2 if i == later else 1) for i in range(2)]
    seen: list[list[sycl.info.event_command_status]] = []
    sycl.event.wait(events)
    hold.record(events, seen)
    assert seen == [[DONE, DONE]], seen


def test_EV_07_wait_and_throw_delivers_once(device: sycl.device) -> None:
    """wait_and_throw hands a host task's error to the async handler exactly once."""
    got: list[int] = []
    q = sycl.queue(device, async_handler=lambda errs: got.append(len(errs)))
    ev = q.submit(lambda h: h.host_task(_fail("on purpose")))
    ev.wait_and_throw()
    ev.wait_and_throw()
    sycl.event.wait_and_throw([ev])
    assert got == [1]


def test_EV_09_errors_go_to_each_queue(device: sycl.device) -> None:
    """A command on queue 2 depending on a failed one on queue 1: each handler gets its own error."""
    got1: list[str] = []
    got2: list[str] = []
    q1 = sycl.queue(device, async_handler=lambda errs: got1.extend(e.what() for e in errs))
    q2 = sycl.queue(device, async_handler=lambda errs: got2.extend(e.what() for e in errs))
    e1 = q1.submit(lambda h: h.host_task(_fail("first queue")))
    e2 = q2.submit(lambda h: (h.depends_on(e1), h.host_task(_fail("second queue"))))
    e2.wait()
    q1.wait_and_throw()
    q2.wait_and_throw()
    assert [("first queue" in m) for m in got1] == [True]
    assert [("second queue" in m) for m in got2] == [True]


def test_EV_08_dependents_of_a_failed_task_run(device: sycl.device) -> None:
    """A command depending on a failed host task still runs; the failure is reported once."""
    got: list[str] = []
    q = sycl.queue(device, async_handler=lambda errs: got.extend(e.what() for e in errs))
    ran = threading.Event()
    failed = q.submit(lambda h: h.host_task(_fail("the first task")))
    q.submit(lambda h: (h.depends_on(failed), h.host_task(ran.set)))
    q.wait_and_throw()
    assert ran.is_set() and len(got) == 1 and "the first task" in got[0]


def test_EV_10_only_new_errors_are_delivered(device: sycl.device) -> None:
    """An error already delivered is not delivered again; a new one is."""
    got: list[list[str]] = []
    q = sycl.queue(device, async_handler=lambda errs: got.append([e.what() for e in errs]))
    q.submit(lambda h: h.host_task(_fail("one")))
    q.wait_and_throw()
    q.wait_and_throw()
    q.throw_asynchronous()
    q.submit(lambda h: h.host_task(_fail("two")))
    q.wait_and_throw()
    assert [[("one" in m, "two" in m) for m in call] for call in got] == [[(True, False)], [(False, True)]]


def test_EV_11_execution_status(queue: sycl.queue) -> None:
    """A gated host task is submitted or running; complete after it is released and waited."""
    gate = Gate()
    held = gate.submit(queue)
    assert status(held) in (sycl.info.event_command_status.submitted, sycl.info.event_command_status.running)
    gate.open()
    held.wait()
    assert status(held) is DONE
    with sycl.buffer(np.zeros(4, np.int32)) as buf:
        kernel = queue.submit(lambda h: h.parallel_for(sycl.range(4), INC, sycl.accessor(buf, h)))
        queue.submit(lambda h: (h.depends_on(kernel), h.host_task(lambda: None))).wait()
        assert status(kernel) is DONE


def test_EV_12_profiling_order(device: sycl.device) -> None:
    """On an enable_profiling queue: command_submit <= command_start <= command_end."""
    needs(device, sycl.aspect.queue_profiling)
    q = sycl.queue(device, prop_list=[sycl.property.queue.enable_profiling()])
    with sycl.buffer(np.zeros(64, np.int32)) as buf:
        ev = q.submit(lambda h: h.parallel_for(sycl.range(64), INC, sycl.accessor(buf, h)))
        ev.wait()
    p = sycl.info.event_profiling
    submit, start, end = (
        ev.get_profiling_info(d) for d in (p.command_submit, p.command_start, p.command_end)
    )
    assert all(isinstance(t, int) for t in (submit, start, end))
    assert submit <= start <= end


def test_EV_13_reference_semantics_and_wait_list(queue: sycl.queue) -> None:
    """Handles of one event are equal; get_wait_list names the event a command depends on."""
    gate = Gate()
    first = gate.submit(queue)
    second = queue.submit(lambda h: h.depends_on(first))
    copy = second
    assert copy == second and hash(copy) == hash(second)
    assert first in second.get_wait_list() and first in copy.get_wait_list()
    gate.open()
    second.wait()
    assert status(first) is DONE


def test_EV_14_profiling_without_property_is_invalid(queue: sycl.queue) -> None:
    """get_profiling_info on a queue without enable_profiling raises errc.invalid."""
    ev = queue.submit(lambda h: None)
    ev.wait()
    with raises(sycl.errc.invalid):
        ev.get_profiling_info(sycl.info.event_profiling.command_end)


def test_EV_15_profiling_blocks_until_available(device: sycl.device) -> None:
    """command_end of an unfinished command blocks until the command finished, then answers."""
    needs(device, sycl.aspect.queue_profiling)
    q = sycl.queue(device, prop_list=[sycl.property.queue.enable_profiling()])
    gate = Gate()
    with sycl.buffer(np.zeros(16, np.int32)) as buf:
        gate.submit(q, lambda h: sycl.accessor(buf, h, target=sycl.target.host_task))
        kernel = q.submit(lambda h: h.parallel_for(sycl.range(16), INC, sycl.accessor(buf, h)))
        answered = threading.Event()
        result: list[object] = []

        def ask() -> None:
            try:
                result.append(kernel.get_profiling_info(sycl.info.event_profiling.command_end))
            except Exception as error:
                result.append(error)
            answered.set()

        asker = threading.Thread(target=ask)
        asker.start()
        early = answered.wait(0.5)  # a bounded check that it does NOT answer while gated
        gate.open()
        asker.join(GATE_TIMEOUT_S)
    assert not early, f"answered before the command ran: {result}"
    assert isinstance(result[0], int), result
    assert result[0] >= kernel.get_profiling_info(sycl.info.event_profiling.command_start)


def test_EV_16_default_events_are_distinct() -> None:
    """Two events made separately by sycl.event() differ (common reference semantics); a
    copy equals its original with the same hash."""
    a, b = sycl.event(), sycl.event()
    assert a != b and len({a, b}) == 2
    assert pycopy.copy(a) == a and hash(pycopy.copy(a)) == hash(a)
