"""Stress and hygiene (docs/reliability.md): many threads at once against a model, and long runs
whose resources must stay flat.

Budgets: ``SYCL_OCL_STRESS_SECONDS`` (default 8) for the thread stress, ``SYCL_OCL_HYGIENE_SCALE``
(default 1: 100,000 commands, 10,000 buffers, 10,000 queues) for the long run; ``make fuzz``
raises both. Every wait in these tests has a timeout, so a deadlock fails the test.
"""

from __future__ import annotations

import gc
import os
import random
import threading
import time

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl
from sycl_ocl.scheduler import Op

sycl.register_kernel_source(
    """
    __kernel void tst_add(__global int *a, int k) { a[get_global_id(0)] += k; }
    """
)

THREADS = 8
N = 64
JOIN_S = 120.0  # far above any run's length: reaching it means a deadlock


def _seconds() -> float:
    return float(os.environ.get("SYCL_OCL_STRESS_SECONDS", "8"))


def _scale() -> float:
    return float(os.environ.get("SYCL_OCL_HYGIENE_SCALE", "1"))


class Worker:
    """One thread's program: random steps on its own buffer and its slot of a shared one,
    each mirrored in a numpy model; the buffers' final bytes must equal the model's."""

    def __init__(self, index: int, queue: sycl.queue, shared: sycl.buffer, seed: int) -> None:
        self.index, self.queue, self.shared = index, queue, shared
        self.rng = random.Random(seed)
        self.own_host = np.zeros(N, np.int32)
        self.own = sycl.buffer(self.own_host)
        self.model_own = np.zeros(N, np.int32)
        self.model_slot = np.zeros(N, np.int32)
        self.steps = 0

    def slot(self) -> sycl.buffer:
        return sycl.buffer(self.shared, sycl.id(self.index * N), sycl.range(N))

    def step(self) -> None:
        k = self.rng.randrange(1, 5)
        choice = self.rng.randrange(6)
        if choice == 0:  # kernel on the own buffer
            self.queue.submit(lambda h: h.parallel_for(N, "tst_add", sycl.accessor(self.own, h), k))
            self.model_own += k
        elif choice == 1:  # kernel on the thread's slot of the shared buffer
            slot = self.slot()
            self.queue.submit(lambda h: h.parallel_for(N, "tst_add", sycl.accessor(slot, h), k))
            self.model_slot += k
        elif choice == 2:  # host task on the own buffer
            def cgf(h: sycl.handler) -> None:
                acc = sycl.accessor(self.own, h)

                def body() -> None:
                    np.asarray(acc)[:] += k
                h.host_task(body)
            self.queue.submit(cgf)
            self.model_own += k
        elif choice == 3:  # host accessor read of both
            with sycl.host_accessor(self.own, sycl.read_only) as ha:
                assert (np.asarray(ha) == self.model_own).all()
            with sycl.host_accessor(self.slot(), sycl.read_only) as ha:
                assert (np.asarray(ha) == self.model_slot).all()
        elif choice == 4:  # host accessor write
            with sycl.host_accessor(self.own) as ha:
                np.asarray(ha)[:] -= 1
            self.model_own -= 1
        else:
            self.queue.wait_and_throw()
        self.steps += 1

    def finish(self) -> None:
        self.queue.wait_and_throw()
        self.own.__exit__(None, None, None)  # the write-back into own_host
        assert (self.own_host == self.model_own).all(), f"thread {self.index}: own buffer differs"


def test_threads_against_a_model(device: sycl.device) -> None:
    """8 threads for a fixed time: shared and separate queues, a shared buffer (each thread its
    sub-buffer) and buffers of their own, kernels, host tasks, host accessors and waits, with
    collections in another thread; every byte equals the model, nothing hangs."""
    if "Oclgrind" in repr(device):
        pytest.skip("Oclgrind is not thread safe (docs/devices/README.md)")
    shared_host = np.zeros(THREADS * N, np.int32)
    common = sycl.queue(device)
    errors: list[BaseException] = []
    deadline = time.monotonic() + _seconds()
    stop = threading.Event()
    with sycl.buffer(shared_host) as shared:
        workers = [Worker(t, common if t % 2 else sycl.queue(device), shared, seed=t) for t in range(THREADS)]

        def run(worker: Worker) -> None:
            try:
                while time.monotonic() < deadline:
                    worker.step()
                worker.finish()
            except BaseException as error:  # surfaced in the main thread
                errors.append(error)

        def collect() -> None:
            while not stop.wait(0.01):
                gc.collect()

        collector = threading.Thread(target=collect)
        collector.start()
        threads = [threading.Thread(target=run, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(JOIN_S)
        stop.set()
        collector.join(JOIN_S)
        assert not any(t.is_alive() for t in threads), "a thread is still running: a deadlock"
        if errors:
            raise errors[0]
    expected = np.concatenate([w.model_slot for w in workers])
    assert (shared_host == expected).all()
    assert sum(w.steps for w in workers) > THREADS  # each thread did work


def _resources() -> dict[str, float]:
    gc.collect()
    with open("/proc/self/statm") as statm:
        rss = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    natives = (cl.Buffer, cl.Event, cl.CommandQueue, cl.Kernel, cl.Context)
    return {
        "rss_mb": rss,
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": threading.active_count(),
        "opencl_objects": sum(isinstance(o, natives) for o in gc.get_objects()),
    }


def _add_one(q: sycl.queue, buf: sycl.buffer) -> None:
    q.submit(lambda h: h.parallel_for(4, "tst_add", sycl.accessor(buf, h), 1))


def _round(q: sycl.queue, count: int) -> None:
    """``count`` commands, ``count / 10`` buffers and queues made and dropped."""
    data = np.zeros(N, np.int32)
    with sycl.buffer(data) as buf:
        for i in range(count):
            q.submit(lambda h: h.parallel_for(N, "tst_add", sycl.accessor(buf, h), 1))
            if i % 1000 == 999:
                q.wait_and_throw()
    assert (data == count).all()
    dev = q.get_device()
    for _ in range(count // 10):
        with sycl.buffer(np.ones(4, np.int32)) as short_lived:
            _add_one(q, short_lived)
        sycl.queue(dev).wait()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc (Linux)")
def test_long_runs_keep_resources_flat(device: sycl.device) -> None:
    """100,000 commands, 10,000 buffers and 10,000 queues (at scale 1) after a warm-up round:
    resident memory, file descriptors, threads and live PyOpenCL objects stay flat."""
    if "Oclgrind" in repr(device):
        pytest.skip("Oclgrind simulates every work-item: 100,000 commands take hours there")
    q = sycl.queue(device)
    count = int(100_000 * _scale())
    _round(q, count // 10)  # warm-up: caches, pools and the progress thread reach their size
    before = _resources()
    _round(q, count)
    after = _resources()
    assert after["rss_mb"] - before["rss_mb"] < 20, (before, after)
    assert after["fds"] <= before["fds"] + 2, (before, after)
    assert after["threads"] <= before["threads"] + 2, (before, after)
    assert after["opencl_objects"] <= before["opencl_objects"] + 50, (before, after)


def _failing_round(q: sycl.queue, buf: sycl.buffer, count: int) -> None:
    """``count`` iterations of three failing commands: a launch refused at submit, one
    refused at enqueue once the host task it waits for ends, a host task that writes the buffer
    and raises; every error delivered."""
    big = int(q.get_device().get_info(sycl.info.device.max_work_group_size)) * 2
    refused = sycl.nd_range(sycl.range(big), sycl.range(big))  # a work-group above the device's

    def too_large(h: sycl.handler, after: sycl.event | None = None) -> None:
        if after is not None:
            h.depends_on(after)
        h.parallel_for(refused, "tst_add", sycl.accessor(buf, h), 1)

    def raising(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h)

        def task() -> None:
            np.asarray(acc)[0] += 1
            raise ValueError("a host task that fails")

        h.host_task(task)

    for _ in range(count):
        with pytest.raises(sycl.exception):
            q.submit(too_large)
        release = threading.Event()  # the gate is still running at the next submit: refused when it ends
        gate = q.submit(lambda h, release=release: h.host_task(release.wait))
        q.submit(lambda h, gate=gate: too_large(h, gate))
        release.set()
        q.submit(raising)
        q.wait_and_throw()


def test_failures_keep_resources_flat(device: sycl.device) -> None:
    """A long service with recurring errors (issue 33 item 11): 5,000 iterations (at scale 1)
    of three failing commands each, after a warm-up round, keep no command record, no
    PyOpenCL object and no memory; every error reaches the handler."""
    delivered = [0]

    def handler(errors: sycl.exception_list) -> None:
        delivered[0] += len(errors)

    q = sycl.queue(device, async_handler=handler)
    count = int(5_000 * _scale())
    data = np.zeros(int(device.get_info(sycl.info.device.max_work_group_size)) * 2, np.int32)
    with sycl.buffer(data) as buf:
        _failing_round(q, buf, 100)
        before = {**_resources(), "commands": _commands()}
        _failing_round(q, buf, count)
        after = {**_resources(), "commands": _commands()}
    assert delivered[0] == 2 * (100 + count)  # the refused enqueue's and the host task's
    assert data[0] == 100 + count  # each host task's write stays (docs/scheduler.md rule S10)
    assert after["commands"] <= before["commands"] + 10, (before, after)
    assert after["opencl_objects"] <= before["opencl_objects"] + 10, (before, after)
    assert after["rss_mb"] - before["rss_mb"] < 5, (before, after)


def _commands() -> int:
    """The scheduler's command records alive."""
    return sum(isinstance(o, Op) for o in gc.get_objects())
