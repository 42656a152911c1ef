"""Category scheduling: the execution and memory model (CTS tests/invoke), SCH-01 .. SCH-12.

Also the driver's side of the memory model: work-group barriers with local memory, and 32- and
64-bit atomics on global and local memory.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import Gate, needs, other_devices

DOUBLE, ADD_FROM, REVERSE, ATOMICS32 = sycl.register_kernel_source(
    """
    __kernel void cts_sch_double(__global const int *src, __global int *dst) {
        dst[get_global_id(0)] = 2 * src[get_global_id(0)];
    }
    __kernel void cts_sch_add_from(__global int *dst, __global const int *src) {
        dst[get_global_id(0)] += src[get_global_id(0)];
    }
    /* Each work-group reverses its slice through local memory. */
    __kernel void cts_sch_reverse(__global const int *src, __global int *dst, __local int *tile) {
        size_t l = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;
        tile[l] = src[base + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        dst[base + l] = tile[n - 1 - l];
    }
    /* 32-bit atomics: g = {add, inc, min, max, cmpxchg-sum}; per group a local counter. */
    __kernel void cts_sch_atomics32(__global int *g, __global int *per_group, __local int *count) {
        int id = (int)get_global_id(0);
        if (get_local_id(0) == 0) *count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_add(&g[0], 1);
        atomic_inc(&g[1]);
        atomic_min(&g[2], id);
        atomic_max(&g[3], id);
        int old = g[4], seen;
        while ((seen = atomic_cmpxchg(&g[4], old, old + id)) != old) old = seen;
        atomic_add(count, 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0) per_group[get_group_id(0)] = *count;
    }
    """
)
(ATOMICS64,) = sycl.register_kernel_source(
    """
    #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
    __kernel void cts_sch_atomics64(__global long *g, __global long *per_group, __local long *count) {
        long id = (long)get_global_id(0);
        if (get_local_id(0) == 0) *count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        atom_add(&g[0], (1L << 33) + id);
        atom_inc(&g[1]);
        atom_add(count, 1L << 40);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0) per_group[get_group_id(0)] = *count;
    }
    """
)


def _three_groups(queues: list[sycl.queue]) -> np.ndarray:
    """Behind a gated host task that writes a: b = 2a; a += b; b = 2a. Returns b."""
    a_host = np.zeros(16, np.int32)
    b_host = np.zeros(16, np.int32)
    with sycl.buffer(a_host) as a, sycl.buffer(b_host) as b:
        gate = Gate()

        def init(h: sycl.handler) -> None:
            acc = sycl.accessor(a, h, sycl.write_only, target=sycl.target.host_task)
            h.host_task(gate.task(lambda: np.copyto(np.asarray(acc), np.arange(16, dtype=np.int32))))

        queues[0].submit(init)
        queues[0].submit(
            lambda h: h.parallel_for(
                sycl.range(16),
                DOUBLE,
                sycl.accessor(a, h, sycl.read_only),
                sycl.accessor(b, h, sycl.write_only),
            )
        )
        queues[1 % len(queues)].submit(
            lambda h: h.parallel_for(
                sycl.range(16), ADD_FROM, sycl.accessor(a, h), sycl.accessor(b, h, sycl.read_only)
            )
        )
        queues[2 % len(queues)].submit(
            lambda h: h.parallel_for(
                sycl.range(16),
                DOUBLE,
                sycl.accessor(a, h, sycl.read_only),
                sycl.accessor(b, h, sycl.write_only),
            )
        )
        gate.open()
    return b_host


def test_SCH_01_dependencies_on_one_queue(queue: sycl.queue) -> None:
    """Command groups reading what the previous one wrote run in order on one queue."""
    assert list(_three_groups([queue])) == [6 * i for i in range(16)]


def test_SCH_02_three_queues_devices_contexts(device: sycl.device) -> None:
    """The same command groups on three queues of different devices (or contexts) agree."""
    devices = [device, *other_devices(device)][:3]
    while len(devices) < 3:
        devices.append(device)  # fewer than three devices: separate contexts still cross
    queues = [sycl.queue(sycl.context(d), d) for d in devices]
    assert list(_three_groups(queues)) == [6 * i for i in range(16)]


@pytest.mark.scenarios("AC-14")
def test_SCH_05_ranged_accessors_depend_on_the_whole_buffer(queue: sycl.queue) -> None:
    """A command on a disjoint window of a buffer waits for an earlier command on another window."""
    buf = sycl.buffer(np.zeros(8, np.int32))
    gate = Gate()
    gate.submit(
        queue,
        lambda h: sycl.accessor(
            buf, h, sycl.write_only, sycl.range(4), sycl.id(0), target=sycl.target.host_task
        ),
    )
    second_ran = threading.Event()

    def cgf(h: sycl.handler) -> None:
        sycl.accessor(buf, h, sycl.write_only, sycl.range(4), sycl.id(4), target=sycl.target.host_task)
        h.host_task(second_ran.set)

    later = queue.submit(cgf)
    early = second_ran.wait(1.0)  # a bounded check that it does NOT run while the first is held
    gate.open()
    later.wait()
    assert not early, "the second command ran while the first (on another window) was still running"


def _local_sizes(device: sycl.device) -> list[int]:
    top = min(device.get_info(sycl.info.device.max_work_group_size), 1024)
    return sorted({1, 7, min(64, top), top})


def test_SCH_10_barrier_and_local_memory(queue: sycl.queue) -> None:
    """Each work-group reverses its slice through local memory, for several work-group sizes."""
    for local in _local_sizes(queue.get_device()):
        n = 3 * local
        src = np.arange(n, dtype=np.int32)
        out = np.zeros(n, np.int32)
        with sycl.buffer(src) as a, sycl.buffer(out) as b:
            queue.submit(
                lambda h, local=local, n=n: h.parallel_for(
                    sycl.nd_range(sycl.range(n), sycl.range(local)),
                    REVERSE,
                    sycl.accessor(a, h, sycl.read_only),
                    sycl.accessor(b, h, sycl.write_only),
                    sycl.local_accessor(np.int32, sycl.range(local), h),
                )
            )
        expected = src.reshape(3, local)[:, ::-1].ravel()
        assert (out == expected).all(), local


def _atomics(queue: sycl.queue, kernel: sycl.kernel_id, g: np.ndarray, groups: int) -> tuple[int, np.ndarray]:
    """Run an atomics kernel over ``groups`` work-groups of up to 64; returns the group size and
    the per-group local counts (``g`` is updated in place)."""
    local = min(64, queue.get_device().get_info(sycl.info.device.max_work_group_size))
    per_group = np.zeros(groups, g.dtype)
    with sycl.buffer(g) as gb, sycl.buffer(per_group) as pb:
        queue.submit(
            lambda h: h.parallel_for(
                sycl.nd_range(sycl.range(groups * local), sycl.range(local)),
                kernel,
                sycl.accessor(gb, h),
                sycl.accessor(pb, h, sycl.write_only),
                sycl.local_accessor(g.dtype, sycl.range(1), h),
            )
        )
    return local, per_group


def test_SCH_11_atomics_32(queue: sycl.queue) -> None:
    """32-bit atomics on global and local memory give exact totals under contention."""
    g = np.array([0, 0, 1 << 30, -1, 0], np.int32)
    local, per_group = _atomics(queue, ATOMICS32, g, 16)
    n = 16 * local
    assert list(g) == [n, n, 0, n - 1, n * (n - 1) // 2]
    assert list(per_group) == [2 * local] * 16


def test_SCH_12_atomics_64(queue: sycl.queue) -> None:
    """64-bit atomics on global and local memory give exact totals (aspect.atomic64)."""
    needs(queue.get_device(), sycl.aspect.atomic64)
    g = np.zeros(2, np.int64)
    local, per_group = _atomics(queue, ATOMICS64, g, 8)
    n = 8 * local
    assert int(g[0]) == n * (1 << 33) + n * (n - 1) // 2 and int(g[1]) == n
    assert [int(v) for v in per_group] == [local << 40] * 8
