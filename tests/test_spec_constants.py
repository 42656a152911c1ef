"""Specialization constants (SYCL 2020 §4.9.5, §4.11.12; SC-01..SC-13, KB-56, KB-61, KB-62).

Emulated by compile-time definitions: values are fixed when an image is compiled, survive
compile -> link -> build, and each distinct set of values is its own cached build.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest
from kernel_support import child_json

import sycl_ocl as sycl
from sycl_ocl.tools import build_cache_stats

E, I = sycl.bundle_state.executable, sycl.bundle_state.input  # noqa: E741 (the spec's names)

SC_INT = sycl.specialization_id("SC_INT", np.int32, 10)
SC_FLOAT = sycl.specialization_id("SC_FLOAT", np.float32, 0.5)
SC_WIDE = sycl.specialization_id("SC_WIDE", np.uint64, 2**40)
SC_FLAG = sycl.specialization_id("SC_FLAG", np.bool_, False)
SC_UNUSED = sycl.specialization_id("SC_UNUSED_BY_ANY_KERNEL", np.int32, 1)

READ = sycl.register_kernel_source(
    """
    __kernel void sc_read(__global long *ints, __global float *floats)
    {
        ints[0] = SC_INT;
        ints[1] = SC_INT;  /* read twice: the same value (SC-06) */
        ints[2] = (long)SC_WIDE;
        ints[3] = SC_FLAG ? 1 : 0;
        floats[0] = SC_FLOAT;
    }
    """
)
PLAIN = sycl.register_kernel_source("__kernel void sc_plain(__global int *a) { a[0] = 1; }")


def _read(q: sycl.queue, configure: object = None) -> tuple[list[int], float]:
    ints, floats = np.zeros(4, np.int64), np.zeros(1, np.float32)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    ibuf = cl.Buffer(q.get_context()._native, flags, hostbuf=ints)
    fbuf = cl.Buffer(q.get_context()._native, flags, hostbuf=floats)

    def cgf(h: sycl.handler) -> None:
        if callable(configure):
            configure(h)
        h.single_task("sc_read", ibuf, fbuf)

    q.submit(cgf).wait()
    cl.enqueue_copy(q._native, ints, ibuf)
    cl.enqueue_copy(q._native, floats, fbuf)
    return ints.tolist(), float(floats[0])


def test_specialization_id_identity_and_validation() -> None:
    """SC-01: ids are distinct objects even with one name; bad names and types are invalid."""
    a, b = sycl.specialization_id("SC_TWIN", np.int32, 1), sycl.specialization_id("SC_TWIN", np.int32, 1)
    assert a is not b and a != b and a.default == 1
    for name, dtype, default in (("not an identifier", np.int32, 0), ("SC_X", np.complex64, 0),
                                 ("SC_Y", np.int8, 1000), ("SC_Z", np.int32, "text"),
                                 ("SC_W", np.int16, 1e30), ("SC_V", np.uint8, -1)):
        with pytest.raises(sycl.exception) as info:
            sycl.specialization_id(name, dtype, default)
        assert info.value.code() is sycl.errc.invalid


def test_kernel_reads_defaults(queue: sycl.queue) -> None:
    """SC-07, SC-08: nothing set -> every read gives the default."""
    ints, value = _read(queue)
    assert ints == [10, 10, 2**40, 0] and value == 0.5


def test_handler_values_reach_the_kernel(queue: sycl.queue) -> None:
    """SC-02..SC-05, SC-12: the last value set wins; unset constants keep their default."""

    def configure(h: sycl.handler) -> None:
        h.set_specialization_constant(SC_INT, 20)
        h.set_specialization_constant(SC_INT, -7)
        h.set_specialization_constant(SC_FLOAT, 1.0 / 3.0)
        assert h.get_specialization_constant(SC_INT) == -7

    ints, value = _read(queue, configure)
    assert ints == [-7, -7, 2**40, 0]
    assert value == np.float32(1.0 / 3.0)  # exact: hexadecimal float literal


def test_distinct_values_never_share_a_build(queue: sycl.queue) -> None:
    """Item 6, SC-13: 1, 2, 1 -> three correct results from two builds."""
    def with_value(v: int) -> object:
        return lambda h: h.set_specialization_constant(SC_INT, v)

    before = build_cache_stats()["memory_builds"]
    assert _read(queue, with_value(1001))[0][0] == 1001
    assert _read(queue, with_value(1002))[0][0] == 1002
    assert build_cache_stats()["memory_builds"] == before + 2
    assert _read(queue, with_value(1001))[0][0] == 1001
    assert build_cache_stats()["memory_builds"] == before + 2


def test_bundle_queries(queue: sycl.queue) -> None:
    """KB-61, KB-62: has/contains/native and defaults."""
    ctx = queue.get_context()
    inp = sycl.get_kernel_bundle(I, ctx, kernel_ids=READ)
    assert inp.has_specialization_constant(SC_INT) and not inp.has_specialization_constant(SC_UNUSED)
    assert inp.contains_specialization_constants() and not inp.native_specialization_constant()
    assert not sycl.get_kernel_bundle(E, ctx, kernel_ids=PLAIN).contains_specialization_constants()
    assert inp.get_specialization_constant(SC_INT) == 10


@pytest.mark.parametrize("path", ["build", "link_compile", "compile_join_link", "join_build"])
def test_bundle_values_survive_compile_link_build(queue: sycl.queue, path: str) -> None:
    """SC-11, KB-56, KB-61: set on the input bundle, read in the kernel after each path."""
    ctx = queue.get_context()
    inp = sycl.get_kernel_bundle(I, ctx, kernel_ids=READ)
    inp.set_specialization_constant(SC_INT, 5)
    inp.set_specialization_constant(SC_INT, 20)
    inp.set_specialization_constant(SC_FLAG, True)
    inp.set_specialization_constant(SC_UNUSED, 3)  # no kernel reads it: harmless
    empty = sycl.get_kernel_bundle(I, ctx, selector=lambda img: False)
    if path == "build":
        exe = sycl.build(inp)
    elif path == "link_compile":
        obj = sycl.compile(inp)
        assert obj.get_specialization_constant(SC_INT) == 20
        exe = sycl.link(obj)
    elif path == "compile_join_link":
        exe = sycl.link(sycl.join([sycl.compile(inp), sycl.compile(empty)]))
    else:
        exe = sycl.build(sycl.join([inp, empty]))
    assert exe.get_specialization_constant(SC_INT) == 20
    assert exe.get_specialization_constant(SC_FLOAT) == np.float32(0.5)
    ints, _ = _read(queue, lambda h: h.use_kernel_bundle(exe))
    assert ints == [20, 20, 2**40, 1]


def test_values_are_set_on_input_bundles_only(queue: sycl.queue) -> None:
    """KB-64: object and executable images have their values fixed."""
    ctx = queue.get_context()
    for state in (sycl.bundle_state.object, E):
        kb = sycl.get_kernel_bundle(state, ctx, kernel_ids=READ)
        with pytest.raises(sycl.exception) as info:
            kb.set_specialization_constant(SC_INT, 1)
        assert info.value.code() is sycl.errc.invalid
    with pytest.raises(sycl.exception) as info:
        sycl.get_kernel_bundle(I, ctx, kernel_ids=READ).set_specialization_constant(SC_INT, 2**40)
    assert info.value.code() is sycl.errc.invalid


def test_handler_constants_with_a_bundle_are_invalid(queue: sycl.queue) -> None:
    """§4.9.4.4: a command group using a bundle takes its constants from the bundle."""
    exe = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=READ)

    def configure(h: sycl.handler) -> None:
        h.use_kernel_bundle(exe)
        h.set_specialization_constant(SC_INT, 3)

    with pytest.raises(sycl.exception) as info:
        _read(queue, configure)
    assert info.value.code() is sycl.errc.invalid


def test_handler_constants_and_a_bundle_exclude_each_other_at_the_call(queue: sycl.queue) -> None:
    """KB-57, SC-10: set/get_specialization_constant after use_kernel_bundle, and
    use_kernel_bundle after a set, raise errc.invalid at the call, even with no kernel."""
    exe = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=READ)
    codes = []

    def bundle_first(h: sycl.handler) -> None:
        h.use_kernel_bundle(exe)
        for call in (lambda: h.set_specialization_constant(SC_INT, 3),
                     lambda: h.get_specialization_constant(SC_INT)):
            with pytest.raises(sycl.exception) as info:
                call()
            codes.append(info.value.code())

    def constant_first(h: sycl.handler) -> None:
        h.set_specialization_constant(SC_INT, 3)
        with pytest.raises(sycl.exception) as info:
            h.use_kernel_bundle(exe)
        codes.append(info.value.code())
        assert h.get_specialization_constant(SC_INT) == 3

    queue.submit(bundle_first).wait()
    queue.submit(constant_first).wait()
    assert codes == [sycl.errc.invalid] * 3


def test_constant_read_in_another_linked_unit_in_a_child() -> None:
    """SC-15: a kernel calls a function of another unit that reads the constant; compile both
    with the bundle's value, then link (in a child: the caller cannot build alone)."""
    result = child_json(
        """
        import json, numpy as np, pyopencl as cl
        import sycl_ocl as sycl
        S = sycl.bundle_state
        linked_value = sycl.specialization_id("SC_LINKED", np.int32, 1)
        ids = sycl.register_kernel_source(
            "int sc_helper(void); __kernel void sc_caller(__global int *o) { o[0] = sc_helper(); }")
        ids += sycl.register_kernel_source(
            "int sc_helper(void) { return SC_LINKED; } __kernel void sc_other(__global int *o) {}")
        out = []
        for dev in sycl.device.get_devices():
            ctx = sycl.context(dev); q = sycl.queue(ctx, dev)
            inp = sycl.get_kernel_bundle(S.input, ctx, kernel_ids=ids)
            inp.set_specialization_constant(linked_value, 42)
            exe = sycl.link(sycl.compile(inp))
            host = np.zeros(1, np.int32)
            buf = cl.Buffer(ctx._native, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
            q.submit(lambda h: (h.use_kernel_bundle(exe), h.single_task("sc_caller", buf))).wait()
            cl.enqueue_copy(q._native, host, buf)
            out.append(int(host[0]))
        print(json.dumps(out))
        """
    )
    assert result and all(v == 42 for v in result), result
