"""The misuse catalogue: wrong calls across the API, each raising ``sycl.exception`` with the
errc the specification names (or the Python exception docs/errors.md gives, where Python's
convention is clearer) and a message that names the problem.

Each case is one row of ``CASES``: an id, the area (with its SYCL 2020 section), what the call
does wrong, the call, the expected errc or exception type, and a part of the message. Every case
runs on every device under test. docs/errors.md lists the table: ``python
tools/misuse_catalogue.py`` writes it there, and ``test_errors_md_lists_the_catalogue`` fails
when the two differ.
"""

from __future__ import annotations

import copy
import importlib.util
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl
import pytest
from conftest import DEVICES, _label, pocl_devices

import sycl_ocl as sycl
from sycl_ocl.ext.oneapi import experimental as graphs

E = sycl.errc
ROOT = Path(__file__).resolve().parent.parent

SOURCE = """
__kernel void misuse_scale(__global float *x, float a) { x[get_global_id(0)] *= a; }
__kernel void misuse_count(__global int *x, int n) { x[get_global_id(0)] = n; }
__kernel void misuse_local(__global float *x, __local float *tmp) {
    tmp[get_local_id(0)] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    x[get_global_id(0)] = tmp[0];
}
__kernel void misuse_own_local(__global float *x, __local float *tmp) {
    __local float own[256];
    own[get_local_id(0)] = x[get_global_id(0)];
    tmp[get_local_id(0)] = own[get_local_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    x[get_global_id(0)] = tmp[0] + own[1];
}
__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void misuse_fixed(__global float *x) {
    x[get_global_id(0)] += 1.0f;
}
__kernel void misuse_spec(__global int *x) { x[0] = MISUSE_SC; }
"""
sycl.register_kernel_source(SOURCE, origin="test_misuse")
sycl.register_kernel_source("__kernel void misuse_other(__global int *x) { x[0] = 1; }")  # a unit of its own
MISUSE_SC = sycl.specialization_id("MISUSE_SC", np.int32, 3)
KEPT_SMALL = np.zeros(4, np.float32)  # alive for the weakref case
BAD_SOURCE = "__kernel void misuse_broken(__global float *x) { x[0] = y; }"


class Env:
    """What the cases work on, per device: a context and queue, another context of the same
    device, a buffer of 16 floats."""

    def __init__(self, dev: sycl.device) -> None:
        self.dev = dev
        self.ctx = sycl.context(dev)
        self.q = sycl.queue(self.ctx, dev)
        self.other = sycl.context(dev)
        self.other_q = sycl.queue(self.other, dev)
        self.buf = sycl.buffer(np.arange(16, dtype=np.float32))
        self.ints = sycl.buffer(np.zeros(16, dtype=np.int32))

    def submit(self, cgf: Callable[[sycl.handler], Any]) -> None:
        """Submit to the queue and wait, so that an asynchronous error is raised here too."""
        self.q.submit(cgf).wait_and_throw()

    def fresh(self, n: int = 16) -> sycl.buffer:
        return sycl.buffer(np.arange(n, dtype=np.float32))

    def usm(self, n: int = 16) -> sycl.usm_ptr:
        ptr = sycl.malloc_shared(count=n, dtype=np.float32, q=self.q)
        assert ptr is not None
        return ptr


@dataclass(frozen=True)
class Case:
    """One wrong call of the catalogue."""

    id: str
    area: str  # the API area and its SYCL 2020 section
    wrong: str  # what the call does wrong
    call: Callable[[Env], object]
    expect: E | type[Exception]  # the errc of the sycl.exception, or a Python exception type
    says: str  # a part of the message
    needs: str = ""  # the aspect the device must have (USM), else the case is skipped there


# --- helpers for cases that take more than an expression ------------------------------------


def _destroyed(e: Env) -> sycl.buffer:
    with sycl.buffer(np.zeros(4, np.float32)) as buf:
        pass
    return buf


def _placeholder_of_destroyed(e: Env) -> None:
    with sycl.buffer(np.zeros(16, np.float32)) as buf:
        acc = sycl.accessor(buf)
    e.submit(lambda h: (h.require(acc), h.parallel_for(16, "misuse_scale", acc, 2.0)))


def _repeated_copy_of_destroyed(e: Env) -> None:
    """``queue.copy`` of a placeholder after copies of its shape (rule S32), once its buffer
    was destroyed."""
    out = np.zeros(16, np.float32)
    with sycl.buffer(np.zeros(16, np.float32)) as buf:
        acc = sycl.accessor(buf, sycl.read_only)
        for _ in range(3):
            e.q.copy(acc, out).wait()
    e.q.copy(acc, out).wait_and_throw()


def _copy_into_read_only(e: Env) -> None:
    out = np.zeros(16, np.float32)
    out.flags.writeable = False
    e.q.copy(sycl.accessor(e.buf, sycl.read_only), out).wait_and_throw()


def _released_host_accessor(e: Env) -> Any:
    acc = sycl.host_accessor(e.fresh(4))
    acc.release()
    return acc


def _foreign_accessor(e: Env) -> None:
    buf = e.fresh()
    stolen: list[sycl.accessor] = []
    e.submit(lambda h: stolen.append(sycl.accessor(buf, h)))
    e.submit(lambda h: h.parallel_for(16, "misuse_scale", stolen[0], 2.0))


def _placeholder_unbound(e: Env) -> None:
    acc = sycl.accessor(e.fresh())
    e.submit(lambda h: h.parallel_for(16, "misuse_scale", acc, 2.0))


def _freed(e: Env) -> sycl.usm_ptr:
    ptr = e.usm()
    sycl.free(ptr, e.q)
    return ptr


def _double_free(e: Env) -> None:
    ptr = e.usm()
    sycl.free(ptr, e.q)
    sycl.free(ptr, e.q)


def _graph(e: Env) -> Any:
    return graphs.command_graph(e.ctx, e.dev)


def _recorded_graph(e: Env) -> Any:
    g = _graph(e)
    buf = e.fresh()
    g.add(lambda h: h.parallel_for(16, "misuse_scale", sycl.accessor(buf, h), 2.0))
    return g


def _two_nodes(e: Env) -> tuple[Any, Any, Any]:
    g = _graph(e)
    buf = e.fresh()
    a = g.add(lambda h: h.parallel_for(16, "misuse_scale", sycl.accessor(buf, h), 2.0))
    b = g.add(lambda h: h.parallel_for(16, "misuse_scale", sycl.accessor(buf, h), 3.0))
    return g, a, b


def _cycle(e: Env) -> None:
    g, a, b = _two_nodes(e)
    g.make_edge(b, a)


def _edge_to_itself(e: Env) -> None:
    g, a, _ = _two_nodes(e)
    g.make_edge(a, a)


def _finalized_add(e: Env) -> None:
    exe = _recorded_graph(e).finalize()
    exe.add(lambda h: None)


def _recording_elsewhere(e: Env, call: Callable[[Any, sycl.queue], Any]) -> None:
    """``call(graph, q)`` on a graph while ``q`` records to another."""
    recording, other = _graph(e), _graph(e)
    q = sycl.queue(e.ctx, e.dev)
    recording.begin_recording(q)
    try:
        call(other, q)
    finally:
        recording.end_recording(q)


def _record_foreign_queue(e: Env) -> None:
    _graph(e).begin_recording(e.other_q)


def _replay_elsewhere(e: Env) -> None:
    exe = _recorded_graph(e).finalize()
    e.other_q.ext_oneapi_graph(exe)


def _bundle(e: Env, state: Any = sycl.bundle_state.executable) -> Any:
    return sycl.get_kernel_bundle(state, e.ctx, kernel_ids=[sycl.get_kernel_id("misuse_scale")])


def _spec_bundle(e: Env, state: Any = sycl.bundle_state.executable) -> Any:
    return sycl.get_kernel_bundle(state, e.ctx, kernel_ids=[sycl.get_kernel_id("misuse_spec")])


def _in_group(e: Env, *steps: Callable[[sycl.handler], Any]) -> None:
    """Submit one command group that takes ``steps`` in order (each a call on the handler)."""
    e.submit(lambda h: [step(h) for step in steps])


def _uses(bundle: Any) -> Callable[[sycl.handler], Any]:
    return lambda h: h.use_kernel_bundle(bundle)


def _sets_constant(h: sycl.handler) -> None:
    h.set_specialization_constant(MISUSE_SC, 4)


def _scales(e: Env) -> Callable[[sycl.handler], Any]:
    buf = e.fresh()
    return lambda h: h.parallel_for(16, "misuse_scale", sycl.accessor(buf, h), 2.0)


def _other_context_bundle(e: Env) -> Any:
    return sycl.get_kernel_bundle(sycl.bundle_state.executable, e.other,
                                  kernel_ids=[sycl.get_kernel_id("misuse_scale")])


def _broken_program(e: Env) -> None:
    program = cl.Program(sycl.get_native(e.ctx), BAD_SOURCE)
    sycl.build(sycl.make_kernel_bundle(program, e.ctx, sycl.bundle_state.input))


def _read_only_host_write(e: Env) -> None:
    with sycl.host_accessor(e.fresh(), sycl.read_only) as acc:
        acc[0] = 1.0


def _host_task_read_only_write(e: Env) -> None:
    buf = e.fresh()

    def cgf(h: sycl.handler) -> None:
        acc = sycl.accessor(buf, h, sycl.read_only)
        h.host_task(lambda: acc.__setitem__(0, 1.0))

    e.submit(cgf)


def _native_mem_of_stranger(e: Env) -> None:
    buf = e.fresh()
    stranger = sycl.accessor(buf)

    def cgf(h: sycl.handler) -> None:
        h.host_task(lambda ih: ih.get_native_mem(stranger))

    e.submit(cgf)


def _host_task_target_in_native(e: Env) -> None:
    buf = e.fresh()

    def cgf(h: sycl.handler) -> None:
        sycl.accessor(buf, h, target=sycl.target.host_task)
        h.host_task(lambda ih: None)

    e.submit(cgf)


def _kernel_args(e: Env, kernel: str, *make: Callable[[sycl.handler], Any], rng: Any = 16) -> None:
    e.submit(lambda h: h.parallel_for(rng, kernel, *(m(h) for m in make)))


def _acc(e: Env) -> Callable[[sycl.handler], Any]:
    buf = e.fresh()
    return lambda h: sycl.accessor(buf, h)


def _value(v: Any) -> Callable[[sycl.handler], Any]:
    return lambda h: v


def _local(dtype: Any, n: int) -> Callable[[sycl.handler], Any]:
    return lambda h: sycl.local_accessor(dtype, n, h)


def _huge_local(e: Env) -> None:
    elements = int(e.dev.get_info(sycl.info.device.local_mem_size)) // 4 + 1
    _kernel_args(e, "misuse_local", _acc(e), _local(np.float32, elements), rng=sycl.nd_range(16, 4))


def _local_beside_own(e: Env) -> None:
    # Fits alone (256 bytes below the limit), not beside the kernel's own 1 KiB.
    elements = int(e.dev.get_info(sycl.info.device.local_mem_size)) // 4 - 64
    _kernel_args(e, "misuse_own_local", _acc(e), _local(np.float32, elements), rng=sycl.nd_range(16, 4))


def _too_large_group(e: Env) -> None:
    most = int(e.dev.get_info(sycl.info.device.max_work_group_size))
    _kernel_args(e, "misuse_scale", _acc(e), _value(2.0), rng=sycl.nd_range(most * 2, most * 2))


def _usm_too_far(e: Env) -> None:
    ptr = e.usm(4)
    e.q.memcpy(ptr, np.zeros(16, np.float32), 64).wait()


def _usm_array_too_small(e: Env) -> None:
    ptr = e.usm(16)
    e.q.memcpy(np.zeros(2, np.float32), ptr, 64).wait()


def _set_final_data(e: Env, target: Any) -> None:
    with sycl.buffer(np.zeros(16, np.float32)) as buf:
        buf.set_final_data(target)


def _other_context_bound(e: Env) -> None:
    buf = sycl.buffer(np.zeros(16, np.float32), prop_list=[sycl.property.buffer.context_bound(e.other)])
    e.submit(lambda h: h.parallel_for(16, "misuse_scale", sycl.accessor(buf, h), 2.0))


def _profile_without_property(e: Env) -> None:
    ev = e.q.submit(lambda h: h.host_task(lambda: None))
    ev.wait()
    ev.get_profiling_info(sycl.info.event_profiling.command_start)


def _same_context_mem(e: Env) -> cl.Buffer:
    return cl.Buffer(sycl.get_native(e.ctx), cl.mem_flags.READ_WRITE, 64)


def _mem_of_other_context(e: Env) -> cl.Buffer:
    return cl.Buffer(sycl.get_native(e.other), cl.mem_flags.READ_WRITE, 64)


def _another_device(e: Env) -> sycl.device:
    """A device other than the one under test (PoCL has two; tests/conftest.py)."""
    return next(d for d in sycl.device.get_devices() if d != e.dev)


def _sub_misaligned(e: Env) -> None:
    align = int(e.dev.get_info(sycl.info.device.mem_base_addr_align)) // 8
    parent = sycl.buffer(np.zeros(align, np.uint8))
    sub = sycl.buffer(parent, sycl.id(1), sycl.range(4))
    e.submit(lambda h: h.parallel_for(4, "misuse_scale", sycl.accessor(sub, h), 1.0))


CASES: list[Case] = [
    # --- platforms, devices, selectors (§4.6.1, §4.6.2, §4.6.4) ------------------------------
    Case("platform-no-device", "platform §4.6.2", "a selector that rejects every device",
         lambda e: sycl.platform(lambda d: -1), E.runtime, "accepted none of the devices"),
    Case("device-no-device", "device §4.6.4", "a selector that rejects every device",
         lambda e: sycl.device(lambda d: -1), E.runtime, "accepted none of the devices"),
    Case("queue-no-device", "queue §4.6.5", "a selector that rejects every device",
         lambda e: sycl.queue(lambda d: -1), E.runtime, "accepted none of the devices"),
    Case("device-selector-not-callable", "device §4.6.4", "a selector that is neither callable nor a string",
         lambda e: sycl.device(42), E.invalid, "selector"),
    Case("device-string-malformed", "device strings", "a malformed device filter string",
         lambda e: sycl.device("opencl:cpu:x:y"), E.invalid, "opencl:cpu:x:y"),
    Case("device-string-no-match", "device strings", "a device filter string no device matches",
         lambda e: sycl.device("opencl:accelerator:7"), E.runtime, "opencl:accelerator:7"),
    Case("device-info-of-platform", "device §4.6.4.2", "a platform descriptor asked of a device",
         lambda e: e.dev.get_info(sycl.info.platform.name), E.invalid, "platform"),
    Case("device-info-string", "device §4.6.4.2", "a string instead of an info descriptor",
         lambda e: e.dev.get_info("name"), E.invalid, "'name'"),
    Case("platform-info-of-device", "platform §4.6.2.2", "a device descriptor asked of a platform",
         lambda e: e.dev.get_platform().get_info(sycl.info.device.name), E.invalid, "device"),
    Case("device-backend-info-foreign", "device §4.6.4", "get_backend_info with another backend's name",
         lambda e: e.dev.get_backend_info("cuda_arch"), E.backend_mismatch, "cuda_arch"),
    Case("device-partition-unsupported", "device §4.6.4.3", "a partition the device does not support",
         lambda e: e.dev.create_sub_devices(sycl.info.partition_property.partition_by_affinity_domain,
                                            sycl.info.partition_affinity_domain.numa),
         E.feature_not_supported, "partition"),
    Case("device-partition-equally-zero", "device §4.6.4.3", "partition_equally into groups of 0 units",
         lambda e: pocl_devices()[0].create_sub_devices(sycl.info.partition_property.partition_equally, 0),
         E.invalid, "0"),
    Case("device-get-devices-bad-type", "device §4.6.4", "a device type that is not an info.device_type",
         lambda e: sycl.device.get_devices("gpu"), E.invalid, "device_type"),
    Case("aspect-selector-not-aspect", "selectors §4.6.1.1", "an aspect_selector of something not an aspect",
         lambda e: sycl.aspect_selector("fp64"), E.invalid, "aspect"),
    # --- contexts (§4.6.3) ---------------------------------------------------------------
    Case("context-empty-devices", "context §4.6.3", "a context of no devices",
         lambda e: sycl.context([]), E.invalid, "device"),
    Case("context-not-device", "context §4.6.3", "a context of something not a device",
         lambda e: sycl.context([42]), E.invalid, "42"),
    Case("context-info-of-device", "context §4.6.3", "a device descriptor asked of a context",
         lambda e: e.ctx.get_info(sycl.info.device.name), E.invalid, "device"),
    Case("context-queue-property", "context §4.6.3", "a queue property given to a context",
         lambda e: sycl.context(e.dev, prop_list=[sycl.property.queue.in_order()]), E.invalid, "in_order"),
    Case("context-handler-not-callable", "context §4.6.3", "an async_handler that is not callable",
         lambda e: sycl.context(e.dev, async_handler=42), E.invalid, "async_handler"),
    Case("context-get-property-absent", "properties §4.5.4", "get_property of a property not given",
         lambda e: e.ctx.get_property(sycl.property.buffer.use_host_ptr), E.invalid, "use_host_ptr"),
    # --- queues (§4.6.5) -----------------------------------------------------------------
    Case("queue-device-not-in-context", "queue §4.6.5", "a queue on a device its context does not hold",
         lambda e: sycl.queue(sycl.context(_another_device(e)), e.dev), E.invalid, "device"),
    Case("queue-buffer-property", "queue §4.6.5", "a buffer property given to a queue",
         lambda e: sycl.queue(e.dev, prop_list=[sycl.property.buffer.use_host_ptr()]), E.invalid,
         "use_host_ptr"),
    Case("queue-handler-not-callable", "queue §4.6.5", "an async_handler that is not callable",
         lambda e: sycl.queue(e.dev, async_handler=42), E.invalid, "async_handler"),
    Case("queue-submit-not-callable", "queue §4.6.5.1", "submit of something not callable",
         lambda e: e.q.submit(42), TypeError, "not callable"),
    Case("queue-submit-cgf-without-handler", "queue §4.6.5.1", "a command group function taking no handler",
         lambda e: e.q.submit(lambda: None), TypeError, "positional argument"),
    Case("queue-info-of-device", "queue §4.6.5", "a device descriptor asked of a queue",
         lambda e: e.q.get_info(sycl.info.device.name), E.invalid, "device"),
    Case("queue-get-property-absent", "queue §4.6.5", "get_property of a property not given",
         lambda e: e.q.get_property(sycl.property.queue.enable_profiling), E.invalid, "enable_profiling"),
    Case("queue-shortcut-unknown-kernel", "queue §4.6.5.2", "a shortcut launch of a kernel nobody registered",
         lambda e: e.q.single_task("misuse_nobody"), E.invalid, "misuse_nobody"),
    Case("queue-shortcut-depends-not-event", "queue §4.6.5.2", "depends_on= of something not an event",
         lambda e: e.q.single_task("misuse_scale", _same_context_mem(e), 1.0, depends_on=[42]), E.invalid,
         "event"),
    # --- events (§4.6.6) -----------------------------------------------------------------
    Case("event-wait-not-events", "event §4.6.6", "event.wait of something not events",
         lambda e: sycl.event.wait([42]), E.invalid, "event"),
    Case("event-info-of-queue", "event §4.6.6", "a queue descriptor asked of an event",
         lambda e: sycl.event().get_info(sycl.info.queue.device), E.invalid, "queue"),
    Case("event-profiling-not-enabled", "event §4.6.6", "profiling info of a queue without enable_profiling",
         _profile_without_property, E.invalid, "enable_profiling"),
    Case("event-profiling-wrong-descriptor", "event §4.6.6", "get_profiling_info with an event descriptor",
         lambda e: sycl.event().get_profiling_info(sycl.info.event.command_execution_status), E.invalid,
         "command_execution_status"),
    Case("handler-depends-on-not-event", "handler §4.9.4.1", "depends_on of something not an event",
         lambda e: e.submit(lambda h: h.depends_on(42)), E.invalid, "depends_on"),
    Case("handler-depends-on-none-in-list", "handler §4.9.4.1", "depends_on of a list holding None",
         lambda e: e.submit(lambda h: h.depends_on([sycl.event(), None])), E.invalid, "None"),
    # --- ranges (§4.9.1) -----------------------------------------------------------------
    Case("range-no-dimensions", "range §4.9.1.1", "a range of no dimensions",
         lambda e: sycl.range(), E.invalid, "1, 2 or 3 dimensions"),
    Case("range-four-dimensions", "range §4.9.1.1", "a range of four dimensions",
         lambda e: sycl.range(1, 2, 3, 4), E.invalid, "1, 2 or 3 dimensions"),
    Case("range-negative", "range §4.9.1.1", "a negative size",
         lambda e: sycl.range(-1), E.invalid, "negative"),
    Case("range-negative-2d", "range §4.9.1.1", "a negative size in a 2-D range",
         lambda e: sycl.range(4, -1), E.invalid, "negative"),
    Case("range-beyond-size-t", "range §4.9.1.1", "a size of 2**70, beyond size_t",
         lambda e: sycl.range(2**70), E.invalid, "size_t"),
    Case("range-beyond-size-t-2d", "range §4.9.1.1", "a size beyond size_t in a 2-D range",
         lambda e: sycl.range(2, 2**64), E.invalid, "size_t"),
    Case("range-float", "range §4.9.1.1", "a float size",
         lambda e: sycl.range(1.5), E.invalid, "integers"),
    Case("range-string", "range §4.9.1.1", "a string size",
         lambda e: sycl.range("ab"), E.invalid, "integers"),
    Case("id-four-dimensions", "id §4.9.1.3", "an id of four dimensions",
         lambda e: sycl.id(1, 2, 3, 4), E.invalid, "1, 2 or 3 dimensions"),
    Case("id-float", "id §4.9.1.3", "a float index",
         lambda e: sycl.id(0.5), E.invalid, "integers"),
    Case("range-index-out-of-range", "range §4.9.1.1", "a dimension the range does not have",
         lambda e: sycl.range(4)[1], IndexError, "index"),
    Case("nd-range-not-dividing", "nd_range §4.9.1.2", "a local range that does not divide the global range",
         lambda e: sycl.nd_range(16, 5), E.nd_range, "divide"),
    Case("nd-range-zero-local", "nd_range §4.9.1.2", "a local range of 0",
         lambda e: sycl.nd_range(16, 0), E.nd_range, "non-zero"),
    Case("nd-range-dimensions", "nd_range §4.9.1.2", "global and local ranges of different dimensions",
         lambda e: sycl.nd_range((4, 4), 4), E.nd_range, "same number of dimensions"),
    Case("nd-range-negative-offset", "nd_range §4.9.1.2", "a negative offset",
         lambda e: sycl.nd_range(16, 4, -1), E.nd_range, "offset"),
    Case("nd-range-offset-beyond-size-t", "nd_range §4.9.1.2", "an offset beyond size_t",
         lambda e: sycl.nd_range(16, 4, 2**64), E.nd_range, "offset"),
    # --- buffers (§4.7.2) ----------------------------------------------------------------
    Case("buffer-range-without-dtype", "buffer §4.7.2", "buffer(range) without an element type",
         lambda e: sycl.buffer(sycl.range(4)), E.invalid, "dtype"),
    Case("buffer-object-dtype", "buffer §4.7.2", "Python objects as elements",
         lambda e: sycl.buffer(sycl.range(4), object), E.invalid, "plain data"),
    Case("buffer-unknown-dtype", "buffer §4.7.2", "an element type numpy does not know",
         lambda e: sycl.buffer(sycl.range(4), "nonsense"), E.invalid, "nonsense"),
    Case("buffer-object-array", "buffer §4.7.2", "a host array of Python objects",
         lambda e: sycl.buffer(np.array([object()])), E.invalid, "plain data"),
    Case("buffer-host-too-small", "buffer §4.7.2", "host data smaller than the range",
         lambda e: sycl.buffer(np.zeros(4, np.float32), sycl.range(8)), E.invalid, "fewer"),
    Case("buffer-none-host", "buffer §4.7.2", "None as host data of a non-empty range",
         lambda e: sycl.buffer(None, sycl.range(4)), E.invalid, "None"),
    Case("buffer-iterable-without-dtype", "buffer §4.7.2", "buffer(iterable) without dtype=",
         lambda e: sycl.buffer([1, 2, 3]), E.invalid, "dtype"),
    Case("buffer-not-data", "buffer §4.7.2", "a buffer of something that holds no data",
         lambda e: sycl.buffer(42), E.invalid, "42"),
    Case("buffer-dtype-mismatch", "buffer §4.7.2", "dtype= that contradicts the host array",
         lambda e: sycl.buffer(np.zeros(4, np.float32), dtype=np.int32), E.invalid, "float32"),
    Case("buffer-beyond-size-t", "buffer §4.7.2", "a buffer of 2**70 elements",
         lambda e: sycl.buffer(sycl.range(2**70), np.float32), E.invalid, "size_t"),
    Case("buffer-queue-property", "buffer §4.7.2", "a queue property given to a buffer",
         lambda e: sycl.buffer(sycl.range(4), np.float32, prop_list=[sycl.property.queue.in_order()]),
         E.invalid, "in_order"),
    Case("buffer-property-not-property", "properties §4.5.4", "something not a property in prop_list",
         lambda e: sycl.buffer(sycl.range(4), np.float32, prop_list=[42]), E.invalid, "42"),
    Case("buffer-get-property-absent", "properties §4.5.4", "get_property of a property not given",
         lambda e: e.buf.get_property(sycl.property.buffer.use_host_ptr), E.invalid, "use_host_ptr"),
    Case("buffer-use-after-destruction", "buffer §4.7.2.3", "an accessor of a destroyed buffer",
         lambda e: sycl.host_accessor(_destroyed(e)), E.invalid, "destroyed"),
    Case("buffer-copy-after-destruction", "buffer §4.7.2.3", "a copy of a destroyed buffer",
         lambda e: copy.copy(_destroyed(e)), E.invalid, "destroyed"),
    Case("buffer-reinterpret-size", "buffer §4.7.2.1", "reinterpret to another byte size",
         lambda e: e.buf.reinterpret(np.float32, sycl.range(8)), E.invalid, "bytes"),
    Case("buffer-reinterpret-2d-no-range", "buffer §4.7.2.1",
         "reinterpret of a 2-D buffer to another element size without a range",
         lambda e: sycl.buffer(sycl.range(2, 2), np.float32).reinterpret(np.float64), E.invalid, "range"),
    Case("buffer-reinterpret-not-whole", "buffer §4.7.2.1", "reinterpret of 3 bytes as float32",
         lambda e: sycl.buffer(np.zeros(3, np.uint8)).reinterpret(np.float32), E.invalid, "whole"),
    Case("buffer-set-final-data-read-only", "buffer §4.7.2.1", "set_final_data into a read-only array",
         lambda e: _set_final_data(e, np.frombuffer(bytes(64), np.float32)), E.invalid, "writable"),
    Case("buffer-set-final-data-too-small", "buffer §4.7.2.1",
         "set_final_data into an array with fewer elements",
         lambda e: _set_final_data(e, np.zeros(4, np.float32)), E.invalid, "4 elements"),
    Case("buffer-set-final-data-weakref-too-small", "buffer §4.7.2.1",
         "set_final_data into a weakref to a smaller array",
         lambda e: _set_final_data(e, weakref.ref(KEPT_SMALL)), E.invalid, "4 elements"),
    Case("buffer-set-final-data-not-array", "buffer §4.7.2.1", "set_final_data into something not an array",
         lambda e: _set_final_data(e, 42), E.invalid, "writable"),
    Case("buffer-context-bound-elsewhere", "buffer properties §4.7.2.2",
         "a context_bound buffer used in another context",
         _other_context_bound, E.invalid, "context"),
    # --- sub-buffers (§4.7.2.1) ----------------------------------------------------------
    Case("sub-buffer-negative-offset", "sub-buffer §4.7.2.1", "a negative sycl.id as base index",
         lambda e: sycl.buffer(e.buf, sycl.id(-1), sycl.range(4)), E.invalid, "negative"),
    Case("sub-buffer-negative-int", "sub-buffer §4.7.2.1", "a negative int as base index",
         lambda e: sycl.buffer(e.buf, -4, sycl.range(4)), E.invalid, "negative"),
    Case("sub-buffer-outside", "sub-buffer §4.7.2.1", "a sub-buffer past the end of its parent",
         lambda e: sycl.buffer(e.buf, sycl.id(8), sycl.range(16)), E.invalid, "exceeds"),
    Case("sub-buffer-of-sub-buffer", "sub-buffer §4.7.2.1", "a sub-buffer of a sub-buffer",
         lambda e: sycl.buffer(sycl.buffer(e.buf, sycl.id(0), sycl.range(8)), sycl.id(0), sycl.range(4)),
         E.invalid, "from a sub-buffer"),
    Case("sub-buffer-no-range", "sub-buffer §4.7.2.1", "a sub-buffer without a range",
         lambda e: sycl.buffer(e.buf, sycl.id(0)), E.invalid, "range"),
    Case("sub-buffer-not-contiguous", "sub-buffer §4.7.2.1", "a 2-D sub-buffer that is not contiguous",
         lambda e: sycl.buffer(sycl.buffer(sycl.range(4, 4), np.float32), sycl.id(0, 0), sycl.range(2, 2)),
         E.invalid, "contiguous"),
    Case("sub-buffer-dimensions", "sub-buffer §4.7.2.1", "a 2-D base index in a 1-D buffer",
         lambda e: sycl.buffer(e.buf, sycl.id(0, 0), sycl.range(4, 1)), E.invalid, "dimension"),
    Case("sub-buffer-of-destroyed", "sub-buffer §4.7.2.1", "a sub-buffer of a destroyed buffer",
         lambda e: sycl.buffer(_destroyed(e), sycl.id(0), sycl.range(2)), E.invalid, "destroyed"),
    Case("sub-buffer-misaligned", "sub-buffer §4.7.2.1", "a sub-buffer not on the device's base alignment",
         _sub_misaligned, E.invalid, "mem_base_addr_align"),
    # --- accessors (§4.7.6.9) ------------------------------------------------------------
    Case("accessor-outside", "accessor §4.7.6.9", "an access range past the buffer",
         lambda e: sycl.accessor(e.buf, None, sycl.read_only, sycl.range(32)), E.invalid, "exceeds"),
    Case("accessor-offset-outside", "accessor §4.7.6.9", "an access offset and range past the buffer",
         lambda e: sycl.accessor(e.buf, None, sycl.read_only, sycl.range(8), sycl.id(12)),
         E.invalid, "exceeds"),
    Case("accessor-negative-offset", "accessor §4.7.6.9", "a negative access offset",
         lambda e: e.submit(lambda h: sycl.accessor(e.buf, h, sycl.read_only, sycl.range(4), sycl.id(-1))),
         E.invalid, "negative"),
    Case("accessor-dimensions", "accessor §4.7.6.9", "a 2-D access range of a 1-D buffer",
         lambda e: sycl.accessor(e.buf, None, sycl.read_only, sycl.range(2, 2)), E.invalid, "dimension"),
    Case("accessor-no-init-read", "accessor §4.7.6.9", "no_init with read_only",
         lambda e: sycl.accessor(e.buf, None, sycl.read_only, prop_list=[sycl.property.no_init()]),
         E.invalid, "no_init"),
    Case("accessor-mode-not-mode", "accessor §4.7.6.9", "an access mode that is not one",
         lambda e: sycl.accessor(e.buf, None, "rw"), E.invalid, "mode"),
    Case("accessor-of-not-buffer", "accessor §4.7.6.9", "an accessor of something not a buffer",
         lambda e: sycl.accessor(np.zeros(4), None), E.invalid, "buffer"),
    Case("accessor-buffer-property", "accessor §4.7.6.9", "a buffer property given to an accessor",
         lambda e: sycl.accessor(e.buf, None, sycl.read_write,
                                 prop_list=[sycl.property.buffer.use_host_ptr()]),
         E.invalid, "use_host_ptr"),
    Case("accessor-get-property-absent", "properties §4.5.4", "get_property of a property not given",
         lambda e: sycl.accessor(e.buf).get_property(sycl.property.no_init), E.invalid, "no_init"),
    Case("accessor-of-another-group", "accessor §4.7.6.9", "an accessor of another command group",
         _foreign_accessor, E.accessor, "not part of this command group"),
    Case("accessor-placeholder-unbound", "accessor §4.7.6.9", "a placeholder used without h.require",
         _placeholder_unbound, E.accessor, "require"),
    Case("accessor-placeholder-of-destroyed", "accessor §4.7.6.9",
         "a placeholder of a destroyed buffer bound with h.require", _placeholder_of_destroyed, E.invalid,
         "destroyed"),
    Case("handler-copy-into-read-only-array", "handler §4.9.4.3", "a copy into a read-only numpy array",
         _copy_into_read_only, E.invalid, "read-only"),
    Case("queue-copy-of-destroyed", "queue §4.6.5.2",
         "queue.copy of a placeholder of a destroyed buffer, after copies of its shape",
         _repeated_copy_of_destroyed, E.invalid, "destroyed"),
    Case("accessor-on-host", "accessor §4.7.6.9", "a device accessor read on the host outside a host task",
         lambda e: sycl.accessor(e.buf)[0], E.accessor, "host_accessor"),
    Case("accessor-asarray-on-host", "accessor §4.7.6.9",
         "numpy.asarray of a device accessor outside a host task",
         lambda e: np.asarray(sycl.accessor(e.buf)), E.accessor, "host task"),
    Case("accessor-read-only-write-in-host-task", "accessor §4.7.6.9",
         "a write through a read_only accessor in a host task",
         _host_task_read_only_write, E.accessor, "read_only"),
    Case("accessor-host-task-target-native", "host tasks §4.10",
         "a target.host_task accessor in a host task taking an interop_handle",
         _host_task_target_in_native, E.invalid, "target.host_task"),
    Case("handler-require-not-accessor", "handler §4.9.4.1", "require of something not an accessor",
         lambda e: e.submit(lambda h: h.require(42)), E.invalid, "accessor"),
    # --- host accessors (§4.7.6.10) ------------------------------------------------------
    Case("host-accessor-outside", "host_accessor §4.7.6.10", "an access range past the buffer",
         lambda e: sycl.host_accessor(e.fresh(), sycl.read_only, sycl.range(17)), E.invalid, "exceeds"),
    Case("host-accessor-negative-offset", "host_accessor §4.7.6.10", "a negative access offset",
         lambda e: sycl.host_accessor(e.fresh(), sycl.read_only, sycl.range(4), sycl.id(-1)), E.invalid,
         "negative"),
    Case("host-accessor-after-release", "host_accessor §4.7.6.10", "a host accessor used after release()",
         lambda e: np.asarray(_released_host_accessor(e)), E.accessor, "released"),
    Case("host-accessor-index-after-release", "host_accessor §4.7.6.10",
         "indexing a host accessor after release()",
         lambda e: _released_host_accessor(e)[0], E.accessor, "released"),
    Case("host-accessor-read-only-write", "host_accessor §4.7.6.10",
         "a write through a read_only host accessor",
         _read_only_host_write, E.accessor, "read_only"),
    Case("host-accessor-no-init-read", "host_accessor §4.7.6.10", "no_init with read_only",
         lambda e: sycl.host_accessor(e.fresh(), sycl.read_only, prop_list=[sycl.property.no_init()]),
         E.invalid, "no_init"),
    Case("host-accessor-mode-not-mode", "host_accessor §4.7.6.10", "an access mode that is not one",
         lambda e: sycl.host_accessor(e.fresh(), "r"), E.invalid, "mode"),
    Case("host-accessor-index-outside", "host_accessor §4.7.6.10", "an index past the accessed range",
         lambda e: sycl.host_accessor(e.fresh(), sycl.read_only)[16], IndexError, "out of bounds"),
    Case("host-accessor-of-destroyed", "host_accessor §4.7.6.10", "a host accessor of a destroyed buffer",
         lambda e: sycl.host_accessor(_destroyed(e), sycl.read_only), E.invalid, "destroyed"),
    # --- local accessors (§4.7.6.11) -----------------------------------------------------
    Case("local-accessor-over-range", "local_accessor §4.7.6.11",
         "a local_accessor in parallel_for over a range",
         lambda e: _kernel_args(e, "misuse_local", _acc(e), _local(np.float32, 4)),
         E.kernel_argument, "nd_range"),
    Case("local-accessor-single-task", "local_accessor §4.7.6.11", "a local_accessor in single_task",
         lambda e: e.submit(lambda h: h.single_task("misuse_local", sycl.accessor(e.fresh(), h),
                                                    sycl.local_accessor(np.float32, 4, h))),
         E.kernel_argument, "local_accessor"),
    Case("local-accessor-too-large", "local_accessor §4.7.6.11",
         "a local_accessor above the device's local_mem_size",
         _huge_local, E.kernel_argument, "local_mem_size"),
    Case("local-accessor-too-large-together", "local_accessor §4.7.6.11",
         "a local_accessor that fits alone, not beside the kernel's own __local memory",
         _local_beside_own, E.kernel_argument, "local_mem_size"),
    Case("local-accessor-negative", "local_accessor §4.7.6.11", "a negative local range",
         lambda e: sycl.local_accessor(np.float32, -1), E.invalid, "negative"),
    Case("local-accessor-unknown-dtype", "local_accessor §4.7.6.11", "an element type numpy does not know",
         lambda e: sycl.local_accessor("nonsense", 4), E.invalid, "nonsense"),
    Case("local-accessor-object-dtype", "local_accessor §4.7.6.11", "Python objects as elements",
         lambda e: sycl.local_accessor(object, 4), E.invalid, "plain data"),
    Case("local-accessor-for-global", "kernel arguments §4.9.4.2",
         "a local_accessor for a __global parameter",
         lambda e: _kernel_args(e, "misuse_scale", _local(np.float32, 4), _value(2.0),
                                rng=sycl.nd_range(16, 4)),
         E.kernel_argument, "__global float *x"),
    # --- the handler (§4.9.4) ------------------------------------------------------------
    Case("handler-two-actions", "handler §4.9.4", "two actions in one command group",
         lambda e: _in_group(e, lambda h: h.host_task(lambda: None), lambda h: h.host_task(lambda: None)),
         E.invalid, "exactly one action"),
    Case("handler-set-arg-negative", "handler §4.9.4.2", "set_arg with a negative index",
         lambda e: e.submit(lambda h: h.set_arg(-1, 1)), E.kernel_argument, "negative"),
    Case("handler-set-arg-gap", "handler §4.9.4.2", "set_arg leaving an index unset",
         lambda e: _in_group(e, lambda h: h.set_arg(1, 2.0), lambda h: h.parallel_for(16, "misuse_scale")),
         E.kernel_argument, "never set"),
    Case("handler-set-arg-and-args", "handler §4.9.4.2", "arguments both with set_arg and to the launch",
         lambda e: _in_group(e, lambda h: h.set_arg(1, 2.0), _scales(e)), E.kernel_argument, "both"),
    Case("handler-host-task-not-callable", "host tasks §4.10", "host_task of something not callable",
         lambda e: e.submit(lambda h: h.host_task(42)), E.invalid, "callable"),
    Case("handler-host-task-two-parameters", "host tasks §4.10", "a host task function of two parameters",
         lambda e: e.submit(lambda h: h.host_task(lambda a, b: None)), E.invalid, "2 arguments"),
    Case("handler-fill-read-only", "handler §4.9.4.3", "fill through a read_only accessor",
         lambda e: e.submit(lambda h: h.fill(sycl.accessor(e.fresh(), h, sycl.read_only), 1.0)), E.invalid,
         "write mode"),
    Case("handler-fill-not-accessor", "handler §4.9.4.3", "fill of something not an accessor",
         lambda e: e.submit(lambda h: h.fill(42, 1.0)), E.invalid, "accessor"),
    Case("handler-fill-other-group", "handler §4.9.4.3", "fill of a placeholder not required",
         lambda e: e.submit(lambda h: h.fill(sycl.accessor(e.fresh()), 1.0)), E.accessor, "require"),
    Case("handler-fill-bad-value", "handler §4.9.4.3", "a fill value the element type cannot hold",
         lambda e: e.submit(lambda h: h.fill(sycl.accessor(e.ints, h), "x")), E.invalid, "'x'"),
    Case("handler-copy-read-only-destination", "handler §4.9.4.3", "copy into a read_only accessor",
         lambda e: e.submit(lambda h: h.copy(np.zeros(16, np.float32),
                                             sycl.accessor(e.fresh(), h, sycl.read_only))),
         E.invalid, "write mode"),
    Case("handler-copy-too-small", "handler §4.9.4.3", "copy into an array smaller than the source",
         lambda e: e.submit(lambda h: h.copy(sycl.accessor(e.fresh(), h, sycl.read_only),
                                             np.zeros(4, np.float32))),
         E.invalid, "elements"),
    Case("handler-copy-not-data", "handler §4.9.4.3",
         "copy between things that are neither accessors nor arrays",
         lambda e: e.submit(lambda h: h.copy(42, 43)), E.invalid, "copy"),
    Case("handler-update-host-not-accessor", "handler §4.9.4.3", "update_host of something not an accessor",
         lambda e: e.submit(lambda h: h.update_host(42)), E.invalid, "accessor"),
    Case("handler-update-host-other-group", "handler §4.9.4.3", "update_host of an accessor not required",
         lambda e: e.submit(lambda h: h.update_host(sycl.accessor(e.fresh()))), E.accessor, "require"),
    Case("handler-graph-not-graph", "graphs", "ext_oneapi_graph of something not an executable graph",
         lambda e: e.submit(lambda h: h.ext_oneapi_graph(42)), E.invalid, "command_graph"),
    Case("handler-constant-after-bundle", "handler §4.9.4.5",
         "set_specialization_constant after use_kernel_bundle",
         lambda e: _in_group(e, _uses(_spec_bundle(e)), _sets_constant), E.invalid,
         "use_kernel_bundle"),
    Case("handler-bundle-after-constant", "handler §4.9.4.4",
         "use_kernel_bundle after set_specialization_constant",
         lambda e: _in_group(e, _sets_constant, _uses(_spec_bundle(e))), E.invalid,
         "set_specialization_constant"),
    Case("handler-get-constant-after-bundle", "handler §4.9.4.5",
         "get_specialization_constant after use_kernel_bundle",
         lambda e: _in_group(e, _uses(_spec_bundle(e)),
                             lambda h: h.get_specialization_constant(MISUSE_SC)),
         E.invalid, "use_kernel_bundle"),
    Case("handler-input-bundle", "handler §4.9.4.4", "use_kernel_bundle of an input bundle, then a launch",
         lambda e: _in_group(e, _uses(_bundle(e, sycl.bundle_state.input)), _scales(e)),
         E.invalid, "executable"),
    Case("handler-bundle-other-context", "handler §4.9.4.4", "use_kernel_bundle of another context's bundle",
         lambda e: _in_group(e, _uses(_other_context_bundle(e)), _scales(e)), E.invalid, "context"),
    Case("handler-bundle-without-kernel", "handler §4.9.4.4", "a launch of a kernel the bundle does not hold",
         lambda e: _in_group(e, _uses(_bundle(e)),
                             lambda h: h.parallel_for(1, "misuse_other", sycl.accessor(e.ints, h))),
         E.kernel_not_supported, "misuse_other"),
    Case("handler-use-bundle-not-bundle", "handler §4.9.4.4", "use_kernel_bundle of something not a bundle",
         lambda e: e.submit(lambda h: h.use_kernel_bundle(42)), E.invalid, "kernel_bundle"),
    # --- kernel launches: which kernel, its arguments (§4.9.4.2) -----------------------------
    Case("launch-unknown-kernel", "handler §4.9.4.2", "a kernel name nobody registered",
         lambda e: e.submit(lambda h: h.parallel_for(16, "misuse_nobody")), E.invalid, "misuse_nobody"),
    Case("launch-kernel-not-kernel", "handler §4.9.4.2", "a kernel that is an int",
         lambda e: e.submit(lambda h: h.parallel_for(16, 42)), E.invalid, "42"),
    Case("launch-kernel-unhashable", "handler §4.9.4.2", "a kernel that is a list",
         lambda e: e.submit(lambda h: h.parallel_for(16, ["misuse_scale"])), E.invalid, "misuse_scale"),
    Case("launch-too-few-arguments", "kernel arguments §4.9.4.2", "fewer arguments than parameters",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e)), E.kernel_argument, "takes 2 argument(s)"),
    Case("launch-too-many-arguments", "kernel arguments §4.9.4.2", "more arguments than parameters",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value(1.0), _value(2.0)), E.kernel_argument,
         "got 3"),
    Case("launch-float-for-int", "kernel arguments §4.9.4.2", "a float for an int parameter",
         lambda e: e.submit(lambda h: h.parallel_for(16, "misuse_count", sycl.accessor(e.ints, h), 1.5)),
         E.kernel_argument, "int n"),
    Case("launch-int-overflow", "kernel arguments §4.9.4.2", "an int too large for an int parameter",
         lambda e: e.submit(lambda h: h.parallel_for(16, "misuse_count", sycl.accessor(e.ints, h), 2**40)),
         E.kernel_argument, "int n"),
    Case("launch-string-for-float", "kernel arguments §4.9.4.2", "a string for a float parameter",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value("2")), E.kernel_argument, "float a"),
    Case("launch-none-for-float", "kernel arguments §4.9.4.2", "None for a float parameter",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value(None)), E.kernel_argument, "float a"),
    Case("launch-wrong-element-type", "kernel arguments §4.9.4.2",
         "an accessor of int32 for a float* parameter",
         lambda e: e.submit(lambda h: h.parallel_for(16, "misuse_scale", sycl.accessor(e.ints, h), 2.0)),
         E.kernel_argument, "int32"),
    Case("launch-scalar-for-pointer", "kernel arguments §4.9.4.2",
         "a scalar for a __global pointer parameter",
         lambda e: _kernel_args(e, "misuse_scale", _value(1.0), _value(2.0)),
         E.kernel_argument, "expects a buffer"),
    Case("launch-accessor-for-scalar", "kernel arguments §4.9.4.2", "an accessor for a float parameter",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _acc(e)), E.kernel_argument, "float a"),
    Case("launch-array-for-pointer", "kernel arguments §4.9.4.2",
         "a numpy array for a __global pointer parameter",
         lambda e: _kernel_args(e, "misuse_scale", _value(np.zeros(16, np.float32)), _value(2.0)),
         E.kernel_argument, "expects a buffer"),
    Case("launch-foreign-pyopencl-buffer", "kernel arguments §4.9.4.2",
         "a pyopencl.Buffer of another context",
         lambda e: _kernel_args(e, "misuse_scale", _value(_mem_of_other_context(e)), _value(2.0)),
         E.kernel_argument, "another context"),
    Case("launch-foreign-usm", "kernel arguments §4.9.4.2", "a USM pointer of another context",
         lambda e: _kernel_args(e, "misuse_scale", _value(sycl.malloc_shared(count=16, dtype=np.float32,
                                                                             q=e.other_q)), _value(2.0)),
         E.invalid, "context", needs="usm_shared_allocations"),
    Case("launch-freed-usm", "kernel arguments §4.9.4.2", "a freed USM pointer",
         lambda e: _kernel_args(e, "misuse_scale", _value(_freed(e)), _value(2.0)), E.invalid, "free",
         needs="usm_shared_allocations"),
    Case("launch-usm-wrong-element-type", "kernel arguments §4.9.4.2",
         "a USM pointer of int32 for a float* parameter",
         lambda e: _kernel_args(e, "misuse_scale",
                                _value(sycl.malloc_shared(count=16, dtype=np.int32, q=e.q)),
                                _value(2.0)), E.kernel_argument, "int32", needs="usm_shared_allocations"),
    Case("launch-shortcut-foreign-buffer", "queue §4.6.5.2",
         "a queue shortcut with a pyopencl.Buffer of another context",
         lambda e: e.q.parallel_for(16, "misuse_scale", _mem_of_other_context(e), 2.0).wait(),
         E.kernel_argument,
         "another context"),
    Case("launch-shortcut-accessor", "queue §4.6.5.2", "a queue shortcut with an accessor",
         lambda e: e.q.parallel_for(16, "misuse_scale", sycl.accessor(e.fresh()), 2.0),
         E.accessor, "accessor"),
    # --- launch ranges (§4.9.1, §4.9.4.2) ------------------------------------------------
    Case("launch-negative-range", "handler §4.9.4.2", "parallel_for over -1 items",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value(2.0), rng=-1), E.invalid, "negative"),
    Case("launch-range-beyond-size-t", "handler §4.9.4.2", "parallel_for over 2**70 items",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value(2.0), rng=2**70), E.invalid, "size_t"),
    Case("launch-range-beyond-size-t-2d", "handler §4.9.4.2", "parallel_for over a 2-D range beyond size_t",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value(2.0), rng=(2**70, 1)),
         E.invalid, "size_t"),
    Case("launch-shortcut-beyond-size-t", "queue §4.6.5.2", "a queue shortcut over 2**70 items",
         lambda e: e.q.parallel_for(2**70, "misuse_scale", _same_context_mem(e), 2.0), E.invalid, "size_t"),
    Case("launch-range-string", "handler §4.9.4.2", "parallel_for over a string",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value(2.0), rng="16"), E.invalid, "integers"),
    Case("launch-four-dimensions", "handler §4.9.4.2", "parallel_for over four dimensions",
         lambda e: _kernel_args(e, "misuse_scale", _acc(e), _value(2.0), rng=(1, 1, 1, 16)), E.invalid,
         "1, 2 or 3 dimensions"),
    Case("launch-group-too-large", "nd_range §4.9.1.2", "a work-group larger than the device allows",
         _too_large_group, E.nd_range, "INVALID_WORK_"),
    Case("launch-reqd-work-group-size", "nd_range §4.9.1.2", "a local range against reqd_work_group_size",
         lambda e: _kernel_args(e, "misuse_fixed", _acc(e), rng=sycl.nd_range(16, 8)), E.nd_range,
         "reqd_work_group_size"),
    Case("kernel-id-unknown", "kernel_id §4.11.6", "get_kernel_id of a name nobody registered",
         lambda e: sycl.get_kernel_id("misuse_nobody"), E.invalid, "misuse_nobody"),
    Case("kernel-construct", "kernel §4.11.13", "constructing a sycl.kernel directly",
         lambda e: sycl.kernel(), TypeError, "get_kernel"),
    Case("kernel-info-needs-device", "kernel §4.11.13.2",
         "a device-specific kernel descriptor without a device",
         lambda e: _bundle(e).get_kernel(sycl.get_kernel_id("misuse_scale")).get_info(
             sycl.info.kernel_device_specific.work_group_size), E.invalid, "device"),
    Case("kernel-info-wrong-namespace", "kernel §4.11.13.2", "a device descriptor asked of a kernel",
         lambda e: _bundle(e).get_kernel(sycl.get_kernel_id("misuse_scale")).get_info(sycl.info.device.name),
         E.invalid, "kernel"),
    Case("bundle-kernel-not-held", "kernel_bundle §4.11.12",
         "get_kernel of a kernel the bundle does not hold",
         lambda e: _bundle(e).get_kernel(sycl.get_kernel_id("misuse_other")), E.invalid, "misuse_other"),
    Case("bundle-get-kernel-input", "kernel_bundle §4.11.12", "get_kernel of an input bundle",
         lambda e: _bundle(e, sycl.bundle_state.input).get_kernel(sycl.get_kernel_id("misuse_scale")),
         E.invalid, "executable"),
    Case("bundle-device-not-in-context", "kernel_bundle §4.11.7", "a bundle for a device of another context",
         lambda e: sycl.get_kernel_bundle(sycl.bundle_state.executable, sycl.context(e.dev),
                                          [_another_device(e)]),
         E.invalid, "device"),
    Case("bundle-ids-not-ids", "kernel_bundle §4.11.7", "kernel_ids that are not kernel ids",
         lambda e: sycl.get_kernel_bundle(sycl.bundle_state.executable, e.ctx, kernel_ids=[42]),
         E.invalid, "42"),
    Case("bundle-state-not-state", "kernel_bundle §4.11.7", "a bundle state that is not a bundle_state",
         lambda e: sycl.get_kernel_bundle("executable", e.ctx), E.invalid, "bundle_state"),
    Case("bundle-build-executable", "kernel_bundle §4.11.11", "build of an executable bundle",
         lambda e: sycl.build(_bundle(e)), E.invalid, "input"),
    Case("bundle-compile-executable", "kernel_bundle §4.11.11", "compile of an executable bundle",
         lambda e: sycl.compile(_bundle(e)), E.invalid, "input"),
    Case("bundle-link-executable", "kernel_bundle §4.11.11", "link of an executable bundle",
         lambda e: sycl.link(_bundle(e)), E.invalid, "object"),
    Case("bundle-link-none", "kernel_bundle §4.11.11", "link of no bundles",
         lambda e: sycl.link([]), E.invalid, "link"),
    Case("bundle-join-contexts", "kernel_bundle §4.11.10", "join of bundles of two contexts",
         lambda e: sycl.join([_bundle(e), sycl.get_kernel_bundle(sycl.bundle_state.executable, e.other)]),
         E.invalid, "context"),
    Case("bundle-join-states", "kernel_bundle §4.11.10", "join of bundles in two states",
         lambda e: sycl.join([_bundle(e), _bundle(e, sycl.bundle_state.input)]), E.invalid, "state"),
    Case("bundle-build-failure", "kernel_bundle §4.11.11", "build of OpenCL C that does not compile",
         _broken_program, E.build, "y"),
    Case("register-duplicate-name", "kernel_id §4.11.6", "a second, different kernel of a registered name",
         lambda e: sycl.register_kernel_source("__kernel void misuse_scale(__global int *x) { x[0] = 0; }"),
         E.invalid, "misuse_scale"),
    Case("register-not-source", "kernel_id §4.11.6", "register_kernel_source of something not text",
         lambda e: sycl.register_kernel_source(42), E.invalid, "source"),
    Case("register-missing-file", "kernel_id §4.11.6", "register_kernel_file of a file that does not exist",
         lambda e: sycl.register_kernel_file(ROOT / "no_such_kernels.cl"), E.invalid, "no_such_kernels.cl"),
    Case("register-unknown-aspect", "kernel_id §4.11.6", "device_has= of something not an aspect",
         lambda e: sycl.register_kernel_source("__kernel void misuse_aspect(__global int *x) { }",
                                               device_has=["fp65"]), E.invalid, "fp65"),
    Case("make-kernel-bundle-not-program", "interop §4.5.1", "make_kernel_bundle of something not a program",
         lambda e: sycl.make_kernel_bundle(42, e.ctx), E.invalid, "Program"),
    Case("make-kernel-not-kernel", "interop §4.5.1", "make_kernel of something not a pyopencl.Kernel",
         lambda e: sycl.make_kernel(42, e.ctx), E.invalid, "Kernel"),
    # --- specialization constants (§4.9.5, §4.11.12) -------------------------------------------
    Case("spec-id-bad-name", "specialization_id §4.9.5", "a name that is no C identifier",
         lambda e: sycl.specialization_id("1bad", np.int32, 0), E.invalid, "identifier"),
    Case("spec-id-object-dtype", "specialization_id §4.9.5", "a type that is no OpenCL C scalar type",
         lambda e: sycl.specialization_id("MISUSE_OBJ", object, 0), E.invalid, "scalar type"),
    Case("spec-id-unknown-dtype", "specialization_id §4.9.5", "a type numpy does not know",
         lambda e: sycl.specialization_id("MISUSE_NONSENSE", "nonsense", 0), E.invalid, "nonsense"),
    Case("spec-id-default-overflow", "specialization_id §4.9.5", "a default the type cannot hold",
         lambda e: sycl.specialization_id("MISUSE_BIG", np.int8, 300), E.invalid, "cannot hold"),
    Case("spec-set-overflow", "handler §4.9.4.5", "a value the constant's type cannot hold",
         lambda e: e.submit(lambda h: h.set_specialization_constant(MISUSE_SC, 2**40)),
         E.invalid, "cannot hold"),
    Case("spec-set-not-id", "handler §4.9.4.5",
         "set_specialization_constant of something not a specialization_id",
         lambda e: e.submit(lambda h: h.set_specialization_constant("MISUSE_SC", 1)), E.invalid,
         "specialization_id"),
    Case("spec-bundle-set-executable", "kernel_bundle §4.11.12",
         "set_specialization_constant on an executable bundle",
         lambda e: _spec_bundle(e).set_specialization_constant(MISUSE_SC, 1),
         E.invalid, "input"),
    Case("spec-bundle-get-not-id", "kernel_bundle §4.11.12",
         "get_specialization_constant of something not a specialization_id",
         lambda e: _spec_bundle(e, sycl.bundle_state.input).get_specialization_constant("MISUSE_SC"),
         E.invalid, "specialization_id"),
    Case("spec-bundle-set-overflow", "kernel_bundle §4.11.12", "a value the constant's type cannot hold",
         lambda e: _spec_bundle(e, sycl.bundle_state.input).set_specialization_constant(MISUSE_SC, "x"),
         E.invalid, "cannot hold"),
    # --- unified shared memory (§4.8) ----------------------------------------------------
    Case("usm-negative-size", "USM §4.8.3", "malloc_shared of a negative size",
         lambda e: sycl.malloc_shared(-1, e.q), E.invalid, ">= 0"),
    Case("usm-float-size", "USM §4.8.3", "malloc_shared of a float size",
         lambda e: sycl.malloc_shared(1.5, e.q), E.invalid, "1.5"),
    Case("usm-no-queue", "USM §4.8.3", "malloc_shared without a queue or context",
         lambda e: sycl.malloc_shared(16), E.invalid, "queue"),
    Case("usm-kind-not-kind", "USM §4.8.3", "malloc with a kind that is not usm.alloc",
         lambda e: sycl.malloc(16, e.dev, e.ctx, "shared"), E.invalid, "alloc"),
    Case("usm-device-not-in-context", "USM §4.8.3", "malloc_device for a device of another context",
         lambda e: sycl.malloc_device(16, _another_device(e), e.ctx), E.invalid, "device"),
    Case("usm-alignment-not-int", "USM §4.8.3", "aligned_alloc_shared with an alignment that is no integer",
         lambda e: sycl.aligned_alloc_shared("64", 16, e.q), E.invalid, "alignment"),
    Case("usm-free-not-pointer", "USM §4.8.3", "free of something not a USM pointer",
         lambda e: sycl.free(42, e.q), E.invalid, "42"),
    Case("usm-double-free", "USM §4.8.3", "free of a pointer freed already",
         _double_free, E.invalid, "free",
         needs="usm_shared_allocations"),
    Case("usm-free-other-context", "USM §4.8.3", "free in another context than the allocation's",
         lambda e: sycl.free(e.usm(), e.other_q), E.invalid, "context",
         needs="usm_shared_allocations"),
    Case("usm-memcpy-past-allocation", "USM §4.8", "memcpy past the end of the allocation",
         _usm_too_far, E.invalid, "bytes",
         needs="usm_shared_allocations"),
    Case("usm-memcpy-array-too-small", "USM §4.8", "memcpy into an array smaller than num_bytes",
         _usm_array_too_small, E.invalid, "bytes",
         needs="usm_shared_allocations"),
    Case("usm-memcpy-negative", "USM §4.8", "memcpy of a negative byte count",
         lambda e: e.q.memcpy(e.usm(), e.usm(), -4), E.invalid, ">= 0",
         needs="usm_shared_allocations"),
    Case("usm-memset-past-allocation", "USM §4.8", "memset past the end of the allocation",
         lambda e: e.q.memset(e.usm(4), 0, 64), E.invalid, "bytes",
         needs="usm_shared_allocations"),
    Case("usm-fill-past-allocation", "USM §4.8", "fill of more elements than the allocation holds",
         lambda e: e.q.fill(e.usm(4), np.float32(1), 16), E.invalid, "bytes",
         needs="usm_shared_allocations"),
    Case("usm-copy-not-pointer", "USM §4.8", "copy between things that are neither USM pointers nor arrays",
         lambda e: e.q.copy(42, e.usm(), 4), E.invalid, "42",
         needs="usm_shared_allocations"),
    Case("usm-memcpy-freed", "USM §4.8", "memcpy from a freed pointer",
         lambda e: e.q.memcpy(e.usm(), _freed(e), 4), E.invalid, "free",
         needs="usm_shared_allocations"),
    Case("usm-prefetch-past-allocation", "USM §4.8", "prefetch past the end of the allocation",
         lambda e: e.q.prefetch(e.usm(4), 64), E.invalid, "bytes",
         needs="usm_shared_allocations"),
    Case("usm-asarray-device", "USM §4.8", "numpy.asarray of device memory",
         lambda e: np.asarray(sycl.malloc_device(16, e.q)), E.invalid, "device",
         needs="usm_device_allocations"),
    Case("usm-pointer-device-unknown", "USM §4.8.4", "get_pointer_device of a pointer of another context",
         lambda e: sycl.get_pointer_device(e.usm(), e.other), E.invalid, "context",
         needs="usm_shared_allocations"),
    Case("usm-typed-and-bytes", "USM §4.8.3", "a typed allocation given a byte count too",
         lambda e: sycl.malloc_shared(64, count=16, dtype=np.float32, q=e.q), E.invalid, "count"),
    # --- command graphs (sycl_ext_oneapi_graph) --------------------------------------------
    Case("graph-device-not-in-context", "graphs", "a graph on a device its context does not hold",
         lambda e: graphs.command_graph(sycl.context(e.dev), _another_device(e)), E.invalid, "device"),
    Case("graph-not-context", "graphs", "a graph of something not a context or queue",
         lambda e: graphs.command_graph(42), E.invalid, "42"),
    Case("graph-no-device", "graphs", "a graph of a context without a device",
         lambda e: graphs.command_graph(e.ctx), E.invalid, "device"),
    Case("graph-replay-modifiable", "graphs", "replay of a graph not finalized",
         lambda e: e.q.ext_oneapi_graph(_recorded_graph(e)), E.invalid, "finalize"),
    Case("graph-replay-other-context", "graphs", "replay on a queue of another context",
         _replay_elsewhere, E.invalid, "context"),
    Case("graph-record-other-context", "graphs", "recording a queue of another context",
         _record_foreign_queue, E.invalid, "context"),
    Case("graph-end-recording-elsewhere", "graphs", "end_recording of a queue recording to another graph",
         lambda e: _recording_elsewhere(e, lambda g, q: g.end_recording(q)), E.invalid, "another graph"),
    Case("graph-record-twice", "graphs", "begin_recording of a queue recording to another graph",
         lambda e: _recording_elsewhere(e, lambda g, q: g.begin_recording(q)), E.invalid, "already"),
    Case("graph-add-to-executable", "graphs", "add to an executable graph",
         _finalized_add, E.invalid, "modifiable"),
    Case("graph-cycle", "graphs", "an edge that makes a cycle",
         _cycle, E.invalid, "cycle"),
    Case("graph-edge-to-itself", "graphs", "an edge from a node to itself",
         _edge_to_itself, E.invalid, "itself"),
    Case("graph-add-not-callable", "graphs", "add of something not a command group function",
         lambda e: _graph(e).add(42), TypeError, "not callable"),
    Case("graph-host-task", "graphs", "a host task in a graph",
         lambda e: _graph(e).add(lambda h: h.host_task(lambda: None)), E.feature_not_supported, "host"),
    # --- interop with PyOpenCL (§4.5.1) ----------------------------------------------------
    Case("get-native-not-sycl", "interop §4.5.1", "get_native of something not a SYCL object",
         lambda e: sycl.get_native(42), E.backend_mismatch, "42"),
    Case("get-native-other-backend", "interop §4.5.1", "get_native for a backend that is not OpenCL",
         lambda e: sycl.get_native(e.dev, "level_zero"), E.backend_mismatch, "opencl"),
    Case("make-platform-not-platform", "interop §4.5.1", "make_platform of something not a pyopencl.Platform",
         lambda e: sycl.make_platform(42), E.invalid, "Platform"),
    Case("make-device-not-device", "interop §4.5.1", "make_device of something not a pyopencl.Device",
         lambda e: sycl.make_device(42), E.invalid, "Device"),
    Case("make-context-not-context", "interop §4.5.1", "make_context of something not a pyopencl.Context",
         lambda e: sycl.make_context(42), E.invalid, "Context"),
    Case("make-queue-not-queue", "interop §4.5.1", "make_queue of something not a pyopencl.CommandQueue",
         lambda e: sycl.make_queue(42, e.ctx), E.invalid, "CommandQueue"),
    Case("make-queue-other-context", "interop §4.5.1", "make_queue of a queue of another context",
         lambda e: sycl.make_queue(sycl.get_native(e.other_q), e.ctx), E.invalid, "context"),
    Case("make-event-not-event", "interop §4.5.1", "make_event of something not a pyopencl.Event",
         lambda e: sycl.make_event(42, e.ctx), E.invalid, "Event"),
    Case("make-buffer-not-buffer", "interop §4.5.1", "make_buffer of something not a pyopencl.Buffer",
         lambda e: sycl.make_buffer(42, e.ctx), E.invalid, "pyopencl.Buffer"),
    Case("make-buffer-other-context", "interop §4.5.1", "make_buffer of memory of another context",
         lambda e: sycl.make_buffer(_mem_of_other_context(e), e.ctx), E.invalid, "another context"),
    Case("make-buffer-not-whole", "interop §4.5.1", "make_buffer of 12 bytes as float64 elements",
         lambda e: sycl.make_buffer(cl.Buffer(sycl.get_native(e.ctx), cl.mem_flags.READ_WRITE, 12), e.ctx,
                                    np.float64), E.invalid, "whole"),
    Case("interop-native-mem-stranger", "host tasks §4.10.2",
         "get_native_mem of an accessor not in the command group",
         _native_mem_of_stranger, E.invalid, "accessor"),
    # --- properties and exceptions (§4.5.4, §4.13) ---------------------------------------
    Case("property-list-not-property", "properties §4.5.4", "a property_list of something not a property",
         lambda e: sycl.property_list(42), E.invalid, "42"),
    Case("property-context-bound-not-context", "buffer properties §4.7.2.2",
         "context_bound of something not a context",
         lambda e: sycl.property.buffer.context_bound(42), E.invalid, "context"),
    Case("property-use-mutex-not-lock", "buffer properties §4.7.2.2", "use_mutex of something not a lock",
         lambda e: sycl.property.buffer.use_mutex(42), E.invalid, "lock"),
    Case("exception-no-context", "exception §4.13.2", "get_context of an exception without one",
         lambda e: sycl.exception(E.runtime, "x").get_context(), E.invalid, "has_context"),
    # --- images (§4.7.3, §4.7.6.13-15) ----------------------------------------------------------
    Case("image-host-dtype", "images §4.7.3", "host data of another type than the format's channels",
         lambda e: sycl.unsampled_image(np.zeros((2, 2, 4), np.float32), RGBA8, sycl.range(2, 2)),
         E.invalid, "uint8"),
    Case("image-host-too-small", "images §4.7.3", "host data of fewer pixels than the range",
         lambda e: sycl.unsampled_image(np.zeros((1, 2, 4), np.uint8), RGBA8, sycl.range(2, 2)),
         E.invalid, "does not hold"),
    Case("image-no-pixels", "images §4.7.3", "a range of no pixels",
         lambda e: sycl.unsampled_image(RGBA8, sycl.range(0, 2)), E.invalid, "no pixels"),
    Case("image-unknown-format", "images §4.7.3", "a format that is no image_format",
         lambda e: sycl.unsampled_image("rgba8", sycl.range(2, 2)), E.invalid, "image_format"),
    Case("image-pitch-too-small", "images §4.7.3", "a pitch smaller than a row of pixels",
         lambda e: sycl.unsampled_image(np.zeros(64, np.uint8), RGBA8, sycl.range(4, 4), sycl.range(8)),
         E.invalid, "smaller"),
    Case("image-use-host-ptr-copied", "images §4.7.3.4", "use_host_ptr over host data the image must copy",
         lambda e: sycl.unsampled_image(np.zeros((2, 4, 4), np.uint8)[:, :2], RGBA8, sycl.range(2, 2),
                                        prop_list=[sycl.property.image.use_host_ptr()]),
         E.invalid, "use_host_ptr"),
    Case("image-sampler-repeat-unnormalized", "samplers §4.7.8", "repeat with unnormalized coordinates",
         lambda e: sycl.image_sampler(sycl.addressing_mode.repeat), E.invalid, "normalized"),
    Case("image-accessor-read-write", "image accessors §4.7.6.13", "an unsampled_image_accessor read_write",
         lambda e: e.submit(lambda h: sycl.unsampled_image_accessor(_image(), h, sycl.read_write)),
         E.invalid, "write_only"),
    Case("image-accessor-of-buffer", "image accessors §4.7.6.13", "an image accessor of a buffer",
         lambda e: e.submit(lambda h: sycl.unsampled_image_accessor(e.fresh(), h, sycl.read_only)),
         E.invalid, "unsampled_image"),
    Case("image-accessor-for-pointer", "image accessors §4.7.6.13", "an image accessor for a pointer",
         lambda e: e.submit(lambda h: h.parallel_for(
             4, "misuse_scale", sycl.unsampled_image_accessor(_image(), h, sycl.read_only), 2.0)),
         E.kernel_argument, "image2d_t"),
    Case("image-sampled-without-sampler-parameter", "image accessors §4.7.6.14",
         "a sampled_image_accessor for a kernel without its sampler_t parameter",
         lambda e: e.submit(lambda h: h.parallel_for(4, "misuse_scale", sycl.sampled_image_accessor(
             sycl.sampled_image(np.zeros((2, 2, 4), np.uint8), RGBA8, sycl.image_sampler(), sycl.range(2, 2)),
             h), 2.0)),
         E.kernel_argument, "sampler_t"),
    Case("image-host-accessor-outside", "image accessors §4.7.6.15", "a host read outside the image",
         lambda e: sycl.host_unsampled_image_accessor(_image()).read((5, 0)), E.invalid, "outside"),
]


RGBA8 = sycl.image_format.r8g8b8a8_uint


def _image() -> sycl.unsampled_image:
    return sycl.unsampled_image(np.zeros((2, 2, 4), np.uint8), RGBA8, sycl.range(2, 2))


@pytest.fixture(scope="module", params=DEVICES, ids=[_label(d) for d in DEVICES])
def env(request: pytest.FixtureRequest) -> Env:
    """The objects the cases work on, for each device under test."""
    return Env(request.param)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_misuse(env: Env, case: Case) -> None:
    """The wrong call raises the catalogue's errc (or exception type) with a message naming
    the problem."""
    if case.needs and not env.dev.has(getattr(sycl.aspect, case.needs)):
        pytest.skip(f"the device lacks aspect.{case.needs}")
    expected = sycl.exception if isinstance(case.expect, E) else case.expect
    with pytest.raises(expected) as info:
        case.call(env)
    if isinstance(case.expect, E):
        assert isinstance(info.value, sycl.exception)
        assert info.value.code() is case.expect, str(info.value)
    assert case.says.lower() in str(info.value).lower(), str(info.value)


def test_catalogue_is_large_and_unique() -> None:
    """At least 150 cases, each id once."""
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)


def test_errors_md_lists_the_catalogue() -> None:
    """docs/errors.md lists exactly this table (tools/misuse_catalogue.py writes it)."""
    spec = importlib.util.spec_from_file_location("misuse_catalogue", ROOT / "tools" / "misuse_catalogue.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    text = (ROOT / "docs" / "errors.md").read_text()
    assert tool.updated(text, tool.render(CASES)) == text, "out of date: run python tools/misuse_catalogue.py"


@pytest.mark.parametrize("kernel", ["misuse_local", "misuse_own_local"])
def test_local_memory_up_to_the_limit_runs(env: Env, kernel: str) -> None:
    """The local-memory check refuses no launch that fits: a local_accessor of all the device's
    local memory but the kernel's own (1 KiB in misuse_own_local) and the alignment runs."""
    limit = int(env.dev.get_info(sycl.info.device.local_mem_size))
    elements = (limit - 2048) // 4
    data = np.arange(16, dtype=np.float32)
    with sycl.buffer(data) as buf:
        env.submit(lambda h: h.parallel_for(sycl.nd_range(16, 4), kernel, sycl.accessor(buf, h),
                                            sycl.local_accessor(np.float32, elements, h)))
    first = np.repeat(np.arange(0, 16, 4, dtype=np.float32), 4)  # each work-group's first element
    # misuse_local writes tmp[0] (the first); misuse_own_local tmp[0] + own[1] (the first and second)
    np.testing.assert_array_equal(data, first if kernel == "misuse_local" else 2 * first + 1)
