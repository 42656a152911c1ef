"""Queues (SYCL 2020 §4.6.5): construction forms, properties, waiting, host tasks."""

from __future__ import annotations

import gc
import logging
import threading
import time
import traceback
from collections.abc import Callable

import numpy as np
import pytest

import sycl_ocl as sycl


def test_queue_forms(device: sycl.device) -> None:
    ctx = sycl.context(device)
    for q in (
        sycl.queue(device),
        sycl.queue(ctx, device),
        sycl.queue(ctx, lambda d: 1 if d == device else -1),
    ):
        assert q.get_device() == device
        assert q.get_backend() is sycl.backend.opencl
    assert sycl.queue(ctx, device).get_context() == ctx


def test_default_queues_share_the_platform_context(device: sycl.device) -> None:
    assert sycl.queue(device).get_context() == sycl.queue(device).get_context()


def test_queue_with_device_outside_its_context_is_invalid(device_pair: list[sycl.device]) -> None:
    ctx = sycl.context(device_pair[0])
    with pytest.raises(sycl.exception) as info:
        sycl.queue(ctx, device_pair[1])
    assert info.value.code() is sycl.errc.invalid
    assert "not one of the devices of this context" in info.value.what()


def test_in_order_property(device: sycl.device) -> None:
    q = sycl.queue(device, prop_list=sycl.property_list(sycl.property.queue.in_order()))
    assert q.is_in_order()
    assert q.has_property(sycl.property.queue.in_order)
    assert not q.has_property(sycl.property.queue.enable_profiling)
    assert not sycl.queue(device).is_in_order()


def test_get_property_of_absent_property_is_invalid(device: sycl.device) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.queue(device).get_property(sycl.property.queue.enable_profiling)
    assert info.value.code() is sycl.errc.invalid


def test_property_of_another_class_is_rejected(device: sycl.device) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.queue(device, prop_list=[sycl.property.buffer.use_host_ptr()])
    assert info.value.code() is sycl.errc.invalid


def test_in_order_host_tasks_run_in_submission_order(device: sycl.device) -> None:
    q = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    gate = threading.Event()
    order: list[int] = []
    q.submit(lambda h: h.host_task(lambda: (gate.wait(10), order.append(1))))
    q.submit(lambda h: h.host_task(lambda: order.append(2)))
    assert order == []
    gate.set()
    q.wait()
    assert order == [1, 2]


def test_async_handler_receives_host_task_errors_once(device: sycl.device) -> None:
    received: list[sycl.exception_list] = []
    q = sycl.queue(device, async_handler=received.append)

    def fail() -> None:
        raise sycl.exception(sycl.errc.runtime, "boom")

    q.submit(lambda h: h.host_task(fail))
    q.wait_and_throw()
    q.wait_and_throw()
    assert len(received) == 1
    assert [e.code() for e in received[0]] == [sycl.errc.runtime]


def test_asynchronous_error_without_handler_raises_at_throw(device: sycl.device) -> None:
    q = sycl.queue(device)

    def fail() -> None:
        raise sycl.exception(sycl.errc.kernel, "failed on purpose")

    q.submit(lambda h: h.host_task(fail))
    q.wait()
    with pytest.raises(sycl.exception, match="failed on purpose"):
        q.throw_asynchronous()
    q.throw_asynchronous()  # delivered once


def test_queue_info_descriptors(device: sycl.device) -> None:
    ctx = sycl.context(device)
    q = sycl.queue(ctx, device)
    assert q.get_info(sycl.info.queue.context) == q.get_context() == ctx
    assert q.get_info(sycl.info.queue.device) == q.get_device() == device
    with pytest.raises(sycl.exception) as info:
        q.get_info(sycl.info.device.name)
    assert info.value.code() is sycl.errc.invalid


def test_queue_with_a_selector_choosing_a_device_outside_the_context(device_pair: list[sycl.device]) -> None:
    ctx = sycl.context(device_pair[0])
    with pytest.raises(sycl.exception) as info:
        sycl.queue(ctx, lambda d: 1 if d == device_pair[1] else -1)
    assert info.value.code() is sycl.errc.invalid


def test_queue_with_a_device_of_another_platform_is_invalid() -> None:
    firsts = [p.get_devices()[0] for p in sycl.platform.get_platforms() if p.get_devices()]
    if len(firsts) < 2:
        pytest.skip("needs devices of two platforms (PoCL and Oclgrind here)")
    with pytest.raises(sycl.exception) as info:
        sycl.queue(sycl.context(firsts[0]), firsts[1])
    assert info.value.code() is sycl.errc.invalid


def test_enable_profiling_is_accepted_iff_the_device_can_profile(device: sycl.device) -> None:
    make = lambda: sycl.queue(device, prop_list=[sycl.property.queue.enable_profiling()])  # noqa: E731
    if device.has(sycl.aspect.queue_profiling):
        assert make().has_property(sycl.property.queue.enable_profiling)
    else:
        with pytest.raises(sycl.exception) as info:
            make()
        assert info.value.code() is sycl.errc.feature_not_supported


def test_throw_asynchronous_does_not_wait_for_pending_work(device: sycl.device) -> None:
    received: list[sycl.exception_list] = []
    q = sycl.queue(device, async_handler=received.append)

    def fail() -> None:
        raise sycl.exception(sycl.errc.runtime, "finished with an error")

    q.submit(lambda h: h.host_task(fail)).wait()
    gate = threading.Event()
    pending = q.submit(lambda h: h.host_task(lambda: gate.wait(30)))
    q.throw_asynchronous()  # returns although `pending` is gated
    assert [e.what() for e in received[0]] == ["finished with an error"]
    status = pending.get_info(sycl.info.event.command_execution_status)
    assert status is not sycl.info.event_command_status.complete
    gate.set()
    q.wait_and_throw()
    assert len(received) == 1


def test_host_task_exception_reaches_the_user_as_the_cause_of_errc_runtime(queue: sycl.queue) -> None:
    """§4.13.1, §4.10: the user sees the exception their host task raised, with the line."""
    def task() -> None:
        raise ValueError("a bad value in the host task")

    queue.submit(lambda h: h.host_task(task))
    with pytest.raises(sycl.exception) as info:
        queue.wait_and_throw()
    error = info.value
    assert error.code() is sycl.errc.runtime
    assert isinstance(error.__cause__, ValueError) and "a bad value" in str(error.__cause__)
    assert "task" in [frame.name for frame in traceback.extract_tb(error.__cause__.__traceback__)]


def test_undelivered_errors_are_logged_when_their_queue_is_collected(
    device: sycl.device, caplog: pytest.LogCaptureFixture
) -> None:
    """§4.13.1: a queue that lives inside a function does not lose its errors silently."""
    def lose_an_error() -> None:
        q = sycl.queue(sycl.context(device), device)

        def fail() -> None:
            raise ValueError("nobody waits and throws for this")

        q.submit(lambda h: h.host_task(fail)).wait()

    with caplog.at_level(logging.ERROR, logger="sycl_ocl"):
        lose_an_error()
        deadline = time.monotonic() + 10
        while "never delivered" not in caplog.text and time.monotonic() < deadline:
            gc.collect()  # the host thread may still hold the command for a moment
            time.sleep(0.01)
    assert "never delivered" in caplog.text and "nobody waits and throws for this" in caplog.text


# --- submit(cgf, secondary_queue) (§4.6.5.1, Table 28) ------------------------------------------

sycl.register_kernel_source("__kernel void fdn_queue_inc(__global int *a) { a[get_global_id(0)] += 1; }")


def test_submit_falls_back_to_the_secondary_queue(device: sycl.device) -> None:
    """The command group uses a kernel bundle of the secondary queue's context: the primary
    refuses it (errc.invalid), so it runs on the secondary, whose event submit returns."""
    primary, secondary = sycl.queue(device), sycl.queue(sycl.context(device), device)
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, secondary.get_context())
    host = np.zeros(16, dtype=np.int32)
    with sycl.buffer(host) as buf:

        def cgf(h: sycl.handler) -> None:
            h.use_kernel_bundle(bundle)
            h.parallel_for(sycl.range(16), "fdn_queue_inc", sycl.accessor(buf, h))

        with pytest.raises(sycl.exception):
            primary.submit(cgf)
        ev = primary.submit(cgf, secondary)
        ev.wait()
    assert (host == 1).all()
    assert ev.get_info(sycl.info.event.command_execution_status) is sycl.info.event_command_status.complete


def test_submit_runs_on_the_primary_when_it_can(device: sycl.device) -> None:
    primary, secondary = sycl.queue(device), sycl.queue(device)
    ran_on: list[int] = []
    primary.submit(lambda h: ran_on.append(1), secondary).wait()
    assert ran_on == [1]  # the command group function ran once


def test_submit_raises_when_both_queues_fail(device: sycl.device) -> None:
    attempts: list[str] = []

    def refused(h: sycl.handler) -> None:
        attempts.append("cgf")
        raise sycl.exception(sycl.errc.feature_not_supported, f"refused on attempt {len(attempts)}")

    with pytest.raises(sycl.exception) as info:
        sycl.queue(device).submit(refused, sycl.queue(device))
    assert info.value.what() == "refused on attempt 2"
    assert isinstance(info.value.__cause__, sycl.exception)
    assert info.value.__cause__.what() == "refused on attempt 1"
    with pytest.raises(sycl.exception) as info:
        sycl.queue(device).submit(lambda h: None, [sycl.property.queue.in_order()])  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid
    assert "secondary_queue" in info.value.what()


def test_a_property_list_in_the_cpp_position(device: sycl.device) -> None:
    """``queue(dev, propList)`` and ``queue(ctx, dev, propList)``, C++'s order, are accepted;
    a second argument that is no property list names the keywords."""
    ctx = sycl.context(device)
    for q in (
        sycl.queue(device, [sycl.property.queue.in_order()]),
        sycl.queue(device, sycl.property.queue.in_order()),
        sycl.queue(ctx, device, sycl.property_list(sycl.property.queue.in_order())),
    ):
        assert q.is_in_order() and q.get_device() == device
    with pytest.raises(sycl.exception) as info:
        sycl.queue(device, device)
    assert info.value.code() is sycl.errc.invalid and "prop_list=" in info.value.what()


def test_errors_pending_at_del_go_to_the_async_handler(device: sycl.device) -> None:
    """§4.13.1: ``del q`` on the user's thread hands the queue's undelivered errors to its
    async handler (else its context's), not to the log."""
    received: list[str] = []
    ctx = sycl.context(device, async_handler=lambda errors: received.extend(e.what() for e in errors))
    for own in (True, False):
        q = sycl.queue(ctx, device, async_handler=(lambda errors: received.extend(
            "own: " + e.what() for e in errors)) if own else None)
        q.submit(lambda h: h.host_task(_fail_with("lost at del"))).wait()
        del q
    assert received == ["own: lost at del", "lost at del"]


def _fail_with(message: str) -> Callable[[], None]:
    def fail() -> None:
        raise sycl.exception(sycl.errc.runtime, message)

    return fail
