"""Thread safety (SYCL 2020 §4; docs/scheduler.md rules S1, S9): command groups submitted from
several threads onto shared buffers give the result of a sequential order consistent with each
thread's program order; one kernel shared by many threads keeps each launch's own arguments."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import numpy as np
import pytest
from kernel_support import run_child

import sycl_ocl as sycl

sycl.register_kernel_source(
    """
    __kernel void tthr_inc(__global int* a) { a[get_global_id(0)] += 1; }
    __kernel void tthr_affine(__global int* a, int mul, int add) {
        size_t i = get_global_id(0);
        a[i] = a[i] * mul + add;
    }
    """
)

THREADS = 4
STEPS = 25


def _run_threads(fn: Callable[[int], None]) -> None:
    errors: list[BaseException] = []

    def guarded(t: int) -> None:
        try:
            fn(t)
        except BaseException as error:  # surfaced in the main thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


def test_shared_and_private_buffers_from_several_threads(device: sycl.device) -> None:
    ctx = sycl.context(device)
    shared_data = np.zeros(16, dtype=np.int32)
    private = [np.zeros(16, dtype=np.int32) for _ in range(THREADS)]
    observed: list[list[int]] = [[] for _ in range(THREADS)]
    with sycl.buffer(shared_data) as shared:
        privates = [sycl.buffer(p) for p in private]

        def work(t: int) -> None:
            q = sycl.queue(ctx, device)
            mine = privates[t]
            for step in range(STEPS):
                q.submit(lambda h: h.parallel_for(16, "tthr_inc", sycl.accessor(shared, h)))
                # non-commutative: only program order gives the expected value
                q.submit(lambda h, step=step: h.parallel_for(
                    16, "tthr_affine", sycl.accessor(mine, h), 3, step + t))
                if step % 5 == 4:
                    with shared.get_host_access(sycl.read_only) as h:
                        observed[t].append(int(np.asarray(h)[0]))

        _run_threads(work)
        for b in privates:
            b.__exit__(None, None, None)
    assert (shared_data == THREADS * STEPS).all()
    for t in range(THREADS):
        expect = 0
        for step in range(STEPS):
            expect = expect * 3 + step + t
            expect = (expect + 2**31) % 2**32 - 2**31  # int32 wrap-around, as on the device
        assert (private[t] == expect).all()
        # each thread sees its own increments, and counts never go back
        assert observed[t] == sorted(observed[t])
        assert all(seen >= 5 * (k + 1) for k, seen in enumerate(observed[t]))


def test_one_kernel_from_eight_threads_keeps_its_arguments(queue: sycl.queue) -> None:
    outs = [np.zeros(8, dtype=np.int32) for _ in range(8)]
    bufs = [sycl.buffer(o) for o in outs]

    def work(t: int) -> None:
        for i in range(10):
            queue.submit(lambda h, i=i: h.parallel_for(8, "tthr_affine", sycl.accessor(bufs[t], h), 1, t + i))

    errors: list[BaseException] = []
    threads = [threading.Thread(target=lambda t=t: _safe(work, t, errors)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    for b in bufs:
        b.__exit__(None, None, None)
    for t, out in enumerate(outs):
        assert (out == sum(t + i for i in range(10))).all()


def test_usm_shortcut_from_threads_keeps_its_arguments(device: sycl.device) -> None:
    """The queue shortcut's fast path (``q.parallel_for`` on USM pointers) from many threads on
    one in-order queue and kernel: each launch runs with its own arguments, also when a thread
    repeats its previous launch (whose arguments another thread's launch may have replaced)."""
    if not device.has(sycl.aspect.usm_device_allocations):
        pytest.skip(f"{device!r} has no USM (no OpenCL SVM): the buffer form is tested above")
    queue = sycl.queue(device, prop_list=[sycl.property.queue.in_order()])
    ptrs = [sycl.malloc_device(count=8, dtype=np.int32, q=queue) for _ in range(THREADS)]
    for p in ptrs:
        queue.memset(p, 0, 32)

    def work(t: int) -> None:
        for i in range(STEPS):
            queue.parallel_for(8, "tthr_affine", ptrs[t], 1, t)  # the same objects each time
            queue.parallel_for(8, "tthr_affine", ptrs[t], 1, i)

    _run_threads(work)
    for t, p in enumerate(ptrs):
        out = np.zeros(8, dtype=np.int32)
        queue.memcpy(out, p, 32).wait()
        assert (out == STEPS * t + sum(range(STEPS))).all()
        sycl.free(p, queue)


def _safe(fn: Callable[[int], None], t: int, errors: list[BaseException]) -> None:
    try:
        fn(t)
    except BaseException as error:
        errors.append(error)


def test_buffers_collected_on_a_starting_host_task_thread_do_not_deadlock() -> None:
    # A thread's start waits for it to run, and a garbage collection on the new thread runs
    # buffer finalizers, which take the scheduler lock: submit must not start threads under
    # it (seen on the GPU machine as a submit hung in Thread.start). A child, so a deadlock
    # ends in a stack dump instead of a hung run.
    done = run_child("""
        import faulthandler, gc, json
        import numpy as np
        import sycl_ocl as sycl
        from tests.conftest import preferred_device

        faulthandler.dump_traceback_later(60, exit=True)
        q = sycl.queue(preferred_device())

        class Cycle:
            def __init__(self):
                self.me = self
                self.buf = sycl.buffer(np.zeros(4, dtype=np.int32))

        gc.set_threshold(50, 1, 1)  # collections everywhere, on every thread
        for _ in range(3000):
            for _ in range(20):
                Cycle()
            q.submit(lambda h: h.host_task(lambda: None))
        q.wait()
        print(json.dumps("done"))
    """)
    assert done.returncode == 0 and "done" in done.stdout, done.stderr[-3000:]


def test_a_host_task_without_a_thread_fails_instead_of_hanging() -> None:
    # Fault injection: the OS refuses new threads (RuntimeError "can't start new thread").
    done = run_child("""
        import json
        import sycl_ocl as sycl
        from sycl_ocl import _native
        from tests.conftest import preferred_device

        received = []
        q = sycl.queue(preferred_device(), async_handler=received.extend)
        with _native.inject("thread", 1):  # the host pool's first thread
            ev = q.submit(lambda h: h.host_task(lambda: None))
            q.wait_and_throw()
        after = []
        q.submit(lambda h: h.host_task(lambda: after.append(1))).wait()
        print(json.dumps([[e.code().name, e.what()] for e in received] + [after]))
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    *errors, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert [code for code, _ in errors] == ["runtime"]
    assert "no thread could run a host command" in errors[0][1]
    assert after == [1]  # the runtime is still usable
