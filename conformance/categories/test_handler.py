"""Category handler and host_task (CTS tests/handler, tests/host_task): HA-01 .. HT-06."""

from __future__ import annotations

import threading

import numpy as np

import sycl_ocl as sycl

(ADD,) = sycl.register_kernel_source(
    "__kernel void cts_add(__global int *d, int v) { d[get_global_id(0)] += v; }"
)


def test_HA_02_03_depends_on(queue: sycl.queue) -> None:
    """depends_on one event and a list: the dependencies are complete when the dependent is."""
    gate = threading.Event()
    e1 = queue.submit(lambda h: h.host_task(lambda: gate.wait(30)))
    e2 = queue.submit(lambda h: h.host_task(lambda: None))
    e3 = queue.submit(lambda h: h.depends_on([e1, e2]))
    gate.set()
    e3.wait()
    done = sycl.info.event_command_status.complete
    assert all(e.get_info(sycl.info.event.command_execution_status) is done for e in (e1, e2))


def test_HA_04_copy_fill_update_host(queue: sycl.queue) -> None:
    """copy host->acc, acc->acc, acc->host, fill and update_host move the right data."""
    src = np.arange(8, dtype=np.int32)
    out = np.zeros(8, np.int32)
    a, b = sycl.buffer(sycl.range(8), np.int32), sycl.buffer(sycl.range(8), np.int32)
    queue.submit(lambda h: h.copy(src, sycl.accessor(a, h, sycl.write_only)))
    queue.submit(lambda h: h.copy(sycl.accessor(a, h, sycl.read_only), sycl.accessor(b, h, sycl.write_only)))
    queue.submit(lambda h: h.copy(sycl.accessor(b, h, sycl.read_only), out)).wait()
    assert (out == src).all()
    queue.submit(lambda h: h.fill(sycl.accessor(b, h, sycl.write_only), np.int32(5)))
    queue.submit(lambda h: h.copy(sycl.accessor(b, h, sycl.read_only), out)).wait()
    assert (out == 5).all()
    data = np.zeros(4, np.int32)
    c = sycl.buffer(data)
    queue.submit(lambda h: h.parallel_for(sycl.range(4), ADD, sycl.accessor(c, h), np.int32(2)))
    queue.submit(lambda h: h.update_host(sycl.accessor(c, h, sycl.read_only))).wait()
    assert list(data) == [2] * 4


def test_HT_02_two_contexts(device: sycl.device) -> None:
    """Host tasks on two queues of two contexts update one buffer: 13 + 2*(3+4) = 27."""
    q1, q2 = sycl.queue(sycl.context(device), device), sycl.queue(sycl.context(device), device)
    value = np.array([13], np.int32)
    with sycl.buffer(value) as buf:
        for _ in range(2):
            for q, inc in ((q1, 3), (q2, 4)):
                def cgf(h: sycl.handler, inc: int = inc) -> None:
                    acc = sycl.accessor(buf, h, sycl.read_write)
                    h.host_task(lambda: np.asarray(acc).__iadd__(inc))
                q.submit(cgf)
    assert value[0] == 27


def test_HT_03_kernels_and_host_tasks(device: sycl.device) -> None:
    """Kernels and host tasks interleaved on two contexts: ((13*3+3)*3+3) = 129."""
    q1, q2 = sycl.queue(sycl.context(device), device), sycl.queue(sycl.context(device), device)
    value = np.array([13], np.int32)
    with sycl.buffer(value) as buf:
        for q in (q1, q2):
            def host_triple(h: sycl.handler) -> None:
                acc = sycl.accessor(buf, h, sycl.read_write)
                h.host_task(lambda: np.asarray(acc).__imul__(3))
            q.submit(host_triple)
            q.submit(lambda h: h.parallel_for(sycl.range(1), ADD, sycl.accessor(buf, h), np.int32(3)))
    assert value[0] == 129


def test_HT_06_host_task_error_is_asynchronous(device: sycl.device) -> None:
    """An exception escaping a host task reaches the async handler."""
    got: list[sycl.exception_list] = []
    q = sycl.queue(device, async_handler=got.append)

    def fail() -> None:
        raise RuntimeError("escaped")

    q.submit(lambda h: h.host_task(fail))
    q.wait_and_throw()
    assert len(got) == 1 and len(got[0]) == 1 and "escaped" in str(next(iter(got[0])))
