"""Category host_task (CTS tests/host_task): HT-02 .. HT-06."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

(ADD,) = sycl.register_kernel_source(
    "__kernel void cts_host_task_add(__global int *d, int v) { d[get_global_id(0)] += v; }"
)


def _host_update(buf: sycl.buffer, fn: object):  # type: ignore[no-untyped-def]
    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, sycl.read_write, target=sycl.target.host_task)
        h.host_task(lambda: fn(np.asarray(acc)))  # type: ignore[operator]

    return cgf


def test_HT_02_two_contexts(device: sycl.device) -> None:
    """Host tasks on two queues of two contexts update one buffer: 13 + 2*(3+4) = 27."""
    q1, q2 = sycl.queue(sycl.context(device), device), sycl.queue(sycl.context(device), device)
    value = np.array([13], np.int32)
    with sycl.buffer(value) as buf:
        for _ in range(2):
            for q, inc in ((q1, 3), (q2, 4)):
                q.submit(_host_update(buf, lambda a, inc=inc: a.__iadd__(inc)))
    assert value[0] == 27


def test_HT_03_kernels_and_host_tasks(device: sycl.device) -> None:
    """Kernels and host tasks interleaved on two contexts: ((13*3+3)*3+3) = 129."""
    q1, q2 = sycl.queue(sycl.context(device), device), sycl.queue(sycl.context(device), device)
    value = np.array([13], np.int32)
    with sycl.buffer(value) as buf:
        for q in (q1, q2):
            q.submit(_host_update(buf, lambda a: a.__imul__(3)))
            q.submit(lambda h, q=q: h.parallel_for(sycl.range(1), ADD, sycl.accessor(buf, h), 3))
    assert value[0] == 129


def test_HT_04_host_task_reads_and_writes(queue: sycl.queue) -> None:
    """A host task reads through a host_task accessor and writes through a device accessor."""
    src = np.arange(8, dtype=np.int32)
    with sycl.buffer(src) as a, sycl.buffer(sycl.range(8), np.int32) as b:
        queue.submit(lambda h: h.parallel_for(sycl.range(8), ADD, sycl.accessor(a, h), 1))

        def cgf(h: sycl.handler) -> None:
            reader = sycl.accessor(a, h, sycl.read_only, target=sycl.target.host_task)
            writer = sycl.accessor(b, h, sycl.write_only)
            h.host_task(lambda: np.copyto(np.asarray(writer), np.asarray(reader) * 10))

        queue.submit(cgf)
        with sycl.host_accessor(b, sycl.read_only) as acc:
            assert list(np.asarray(acc)) == [10 * (i + 1) for i in range(8)]


def test_HT_05_interop_handle(queue: sycl.queue) -> None:
    """An interop_handle gives the native queue, device, context and memory; native work is seen later."""
    data = np.zeros(8, np.int32)
    seen: list[object] = []
    with sycl.buffer(data) as buf:

        def cgf(h: sycl.handler) -> None:
            acc = sycl.accessor(buf, h, sycl.write_only)

            def body(ih: object) -> None:
                ih_: object = ih
                nq = ih_.get_native_queue()  # type: ignore[attr-defined]
                seen.extend([nq, ih_.get_native_device(), ih_.get_native_context()])  # type: ignore[attr-defined]
                (mem,) = ih_.get_native_mem(acc)  # type: ignore[attr-defined]
                cl.enqueue_fill_buffer(nq, mem, np.int32(6), 0, 8 * 4)

            h.host_task(body)

        queue.submit(cgf)
        queue.submit(lambda h: h.parallel_for(sycl.range(8), ADD, sycl.accessor(buf, h), 1))
    assert list(data) == [7] * 8
    assert seen[1] == sycl.get_native(queue.get_device())
    assert seen[2] == sycl.get_native(queue.get_context())


def test_HT_06_host_task_error_is_asynchronous(device: sycl.device) -> None:
    """An exception escaping a host task reaches the async handler."""
    got: list[sycl.exception_list] = []
    q = sycl.queue(device, async_handler=got.append)

    def fail() -> None:
        raise RuntimeError("escaped")

    q.submit(lambda h: h.host_task(fail))
    q.wait_and_throw()
    assert len(got) == 1 and len(got[0]) == 1
    error = next(iter(got[0]))
    assert isinstance(error, sycl.exception) and "escaped" in str(error)
