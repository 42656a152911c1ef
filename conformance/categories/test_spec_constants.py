"""Category spec_constants (CTS tests/spec_constants): SC-01 .. SC-15.

sycl_ocl emulates specialization constants with compile-time definitions: a constant named
``N`` is the OpenCL C identifier ``N`` (docs/deviations.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import child, needs, needs_state, raises

S = sycl.bundle_state
SC_INT = sycl.specialization_id("CTS_SC_INT", np.int32, 10)
SC_WIDE = sycl.specialization_id("CTS_SC_WIDE", np.uint64, 2**40)
SC_FLAG = sycl.specialization_id("CTS_SC_FLAG", np.bool_, False)
SC_FLOAT = sycl.specialization_id("CTS_SC_FLOAT", np.float32, 0.5)
SC_OTHER = sycl.specialization_id("CTS_SC_OTHER", np.int32, -3)
SC_DOUBLE = sycl.specialization_id("CTS_SC_DOUBLE", np.float64, 0.25)

READ, READ_OTHER = sycl.register_kernel_source(
    """
    int cts_sc_helper(void) { return CTS_SC_INT + 1000; }  /* a helper reads it too (SC-09) */
    __kernel void cts_sc_read(__global long *out, __global float *f) {
        out[0] = CTS_SC_INT;
        out[1] = CTS_SC_INT;  /* read twice (SC-06) */
        out[2] = (long)CTS_SC_WIDE;
        out[3] = CTS_SC_FLAG ? 1 : 0;
        out[4] = cts_sc_helper();
        f[0] = CTS_SC_FLOAT;
    }
    __kernel void cts_sc_read_other(__global long *out, int slot) { out[slot] = CTS_SC_OTHER; }
    """
)
(READ_DOUBLE,) = sycl.register_kernel_source(
    "__kernel void cts_sc_read_double(__global double *out) { out[0] = CTS_SC_DOUBLE * 2.0; }"
)


def _read(q: sycl.queue, configure: Callable[[sycl.handler], Any] | None = None) -> tuple[list[int], float]:
    ints, floats = np.zeros(5, np.int64), np.zeros(1, np.float32)
    with sycl.buffer(ints) as ib, sycl.buffer(floats) as fb:

        def cgf(h: sycl.handler) -> None:
            if configure is not None:
                configure(h)
            h.single_task(READ, sycl.accessor(ib, h, sycl.write_only), sycl.accessor(fb, h, sycl.write_only))

        q.submit(cgf).wait_and_throw()
    return ints.tolist(), float(floats[0])


def test_SC_01_identity() -> None:
    """Specialization ids are distinct objects even with one name; they keep name, type, default."""
    a, b = (
        sycl.specialization_id("CTS_SC_TWIN", np.int32, 1),
        sycl.specialization_id("CTS_SC_TWIN", np.int32, 1),
    )
    assert a is not b and a != b
    assert (a.name, a.dtype, a.default) == ("CTS_SC_TWIN", np.dtype(np.int32), 1)
    with raises(sycl.errc.invalid):
        sycl.specialization_id("not an identifier", np.int32, 0)


def test_SC_02_03_07_handler_get_without_kernel(queue: sycl.queue) -> None:
    """In a command group without a kernel: get gives the default, the value set, the last value set."""
    got: list[object] = []

    def cgf(h: sycl.handler) -> None:
        got.append(h.get_specialization_constant(SC_INT))
        h.set_specialization_constant(SC_INT, 20)
        got.append(h.get_specialization_constant(SC_INT))
        h.set_specialization_constant(SC_INT, 30)
        got.append(h.get_specialization_constant(SC_INT))

    queue.submit(cgf).wait()
    assert got == [10, 20, 30]


def test_SC_04_05_06_09_12_kernel_reads_values(queue: sycl.queue) -> None:
    """The kernel (and a helper it calls) reads the last value set; unset constants keep defaults."""

    def configure(h: sycl.handler) -> None:
        h.set_specialization_constant(SC_INT, 20)
        h.set_specialization_constant(SC_INT, -7)
        h.set_specialization_constant(SC_FLAG, True)

    ints, value = _read(queue, configure)
    assert ints == [-7, -7, 2**40, 1, 993] and value == 0.5


def test_SC_07_08_defaults(queue: sycl.queue) -> None:
    """Nothing set: every read gives the default."""
    assert _read(queue) == ([10, 10, 2**40, 0, 1010], 0.5)


def _bundle_value(q: sycl.queue, exe: sycl.kernel_bundle) -> int:
    ints, _ = _read(q, lambda h: h.use_kernel_bundle(exe))
    assert ints[0] == ints[1] and ints[4] == ints[0] + 1000
    return ints[0]


def test_SC_11_through_bundles(queue: sycl.queue) -> None:
    """States x operations x 0, 1 or 2 sets: kernel and bundle read the last value set, or the default."""
    dev, ctx = queue.get_device(), queue.get_context()
    needs_state(dev, S.object)

    def empty(state: sycl.bundle_state) -> sycl.kernel_bundle:
        return sycl.get_kernel_bundle(state, ctx, kernel_ids=[])

    operations: dict[str, Callable[[sycl.kernel_bundle], sycl.kernel_bundle]] = {
        "build": sycl.build,
        "link(compile)": lambda b: sycl.link(sycl.compile(b)),
        "build(join with empty)": lambda b: sycl.build(sycl.join([b, empty(S.input)])),
        "link(join(compile, empty))": lambda b: sycl.link(sycl.join([sycl.compile(b), empty(S.object)])),
        "join(build, empty)": lambda b: sycl.join([sycl.build(b), empty(S.executable)]),
    }
    for sets in ([], [21], [21, 32]):
        expected = sets[-1] if sets else 10
        for name, operation in operations.items():
            inp = sycl.get_kernel_bundle(S.input, ctx, kernel_ids=[READ])
            for value in sets:
                inp.set_specialization_constant(SC_INT, value)
            assert inp.get_specialization_constant(SC_INT) == expected
            exe = operation(inp)
            assert exe.get_specialization_constant(SC_INT) == expected, (name, sets)
            assert _bundle_value(queue, exe) == expected, (name, sets)
    obj = sycl.get_kernel_bundle(S.object, ctx, kernel_ids=[READ])
    for exe in (sycl.link(obj), sycl.get_kernel_bundle(S.executable, ctx, kernel_ids=[READ])):
        assert exe.get_specialization_constant(SC_INT) == 10 and _bundle_value(queue, exe) == 10


def test_SC_12_several_constants_through_a_bundle(queue: sycl.queue) -> None:
    """Several constants, some set on the input bundle: each reads its own value or default."""
    needs_state(queue.get_device(), S.input)
    inp = sycl.get_kernel_bundle(S.input, queue.get_context(), kernel_ids=[READ])
    inp.set_specialization_constant(SC_WIDE, 7)
    inp.set_specialization_constant(SC_FLOAT, 2.5)
    exe = sycl.build(inp)
    assert _read(queue, lambda h: h.use_kernel_bundle(exe)) == ([10, 10, 7, 0, 1010], 2.5)


def test_SC_13_values_are_not_shared_between_submissions(queue: sycl.queue) -> None:
    """One kernel submitted with three values in a row: each submission sees its own."""
    out = np.zeros(3, np.int64)
    with sycl.buffer(out) as buf:
        for slot, value in enumerate((4, 5, 6)):
            queue.submit(
                lambda h, slot=slot, value=value: (
                    h.set_specialization_constant(SC_OTHER, value),
                    h.single_task(READ_OTHER, sycl.accessor(buf, h), slot),
                )
            )
    assert out.tolist() == [4, 5, 6]


def test_SC_14_constants_of_several_units(queue: sycl.queue) -> None:
    """Constants of different names in different units each read their own values."""
    out = np.zeros(2, np.int64)

    def both(h: sycl.handler) -> None:
        h.set_specialization_constant(SC_INT, 77)
        h.set_specialization_constant(SC_OTHER, 88)

    with sycl.buffer(out) as buf:
        queue.submit(lambda h: (both(h), h.single_task(READ_OTHER, sycl.accessor(buf, h), 1)))
    ints, _ = _read(queue, both)
    assert out.tolist() == [0, 88] and ints[0] == 77


def test_SC_04_fp64_constant(queue: sycl.queue) -> None:
    """A double constant set in a command group reaches the kernel exactly (where fp64 exists)."""
    needs(queue.get_device(), sycl.aspect.fp64)
    out = np.zeros(1, np.float64)
    with sycl.buffer(out) as buf:
        queue.submit(
            lambda h: (
                h.set_specialization_constant(SC_DOUBLE, 1 / 3),
                h.single_task(READ_DOUBLE, sycl.accessor(buf, h, sycl.write_only)),
            )
        )
    assert out[0] == 2 / 3


def test_SC_15_constant_read_in_a_library_unit() -> None:
    """A constant read in a library unit linked into the kernel's program has the command group's value."""
    found = child(
        """
        import json, numpy as np, sycl_ocl as sycl
        spec = sycl.specialization_id("SC15_VALUE", np.int32, 1)
        sycl.register_kernel_source("int sc15_lib(void) { return SC15_VALUE * 2; }")
        (k,) = sycl.register_kernel_source(
            "int sc15_lib(void); __kernel void sc15_use(__global int *d) { d[0] = sc15_lib(); }")
        q = sycl.queue()
        out = np.zeros(1, np.int32)
        with sycl.buffer(out) as buf:
            q.submit(lambda h: (h.set_specialization_constant(spec, 21),
                                h.single_task(k, sycl.accessor(buf, h))))
        print(json.dumps(int(out[0])))
        """
    )
    assert found == 42


@pytest.mark.scenarios("KB-57")
def test_SC_10_handler_constants_with_a_bundle_are_invalid(queue: sycl.queue) -> None:
    """set/get_specialization_constant after use_kernel_bundle, and the reverse, raise errc.invalid."""
    exe = sycl.get_kernel_bundle(S.executable, queue.get_context(), kernel_ids=[READ])
    calls: list[Callable[[sycl.handler], Any]] = [
        lambda h: (h.use_kernel_bundle(exe), h.set_specialization_constant(SC_INT, 1)),
        lambda h: (h.use_kernel_bundle(exe), h.get_specialization_constant(SC_INT)),
        lambda h: (h.set_specialization_constant(SC_INT, 1), h.use_kernel_bundle(exe)),
    ]
    for call in calls:
        with raises(sycl.errc.invalid):
            queue.submit(call)
