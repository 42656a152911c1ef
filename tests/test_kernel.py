"""``sycl::kernel`` and launching kernels (SYCL 2020 §4.11.13, §4.9.4.2, §4.9.4.4).

Launches by name, ``kernel_id`` and ``kernel``; argument conversion to the declared types;
``errc.kernel_argument`` naming the parameter; kernel information; ``use_kernel_bundle``.
Buffers are PyOpenCL buffers passed directly (interop).
"""

from __future__ import annotations

import re
import threading

import numpy as np
import pyopencl as cl
import pyopencl.cltypes as cltypes
import pytest

import sycl_ocl as sycl
from sycl_ocl import library
from sycl_ocl.info.kernel_device_specific import sub_group_count

E = sycl.bundle_state.executable

SCALE = sycl.register_kernel_source(
    """
    __kernel void kt_scale(__global float *a, const float s) { a[get_global_id(0)] *= s; }
    __kernel void kt_iota(__global int *a, const int start)
    {
        a[get_global_id(0)] = start + get_global_id(0);
    }
    """
)
# One parameter of each scalar type; the kernel stores them so the conversion can be read back.
TYPES = sycl.register_kernel_source(
    """
    typedef unsigned short kt_u16;
    __kernel void kt_types(__global long *ints, __global float *floats,
                           char c, uchar uc, short s, kt_u16 us, int i, uint ui, long l, ulong ul,
                           uchar b, float f, float4 v)
    {
        ints[0] = c; ints[1] = uc; ints[2] = s; ints[3] = us; ints[4] = i; ints[5] = ui;
        ints[6] = l; ints[7] = (long)ul; ints[8] = b ? 77 : 0;
        floats[0] = f; floats[1] = v.x; floats[2] = v.w;
    }
    """
)
HINTED = sycl.register_kernel_source(
    """
    __kernel __attribute__((vec_type_hint(float4))) __attribute__((work_group_size_hint(8, 1, 1)))
    void kt_hinted(__global int *a) { a[get_global_id(0)] = 2 * get_global_id(0); }
    """
)
NEVER = sycl.register_kernel_source(
    "__kernel void kt_never(__global int *a) { a[0] = 1; }",
    device_has=[sycl.aspect.cpu, sycl.aspect.gpu],  # no device is both: compatible with none
)
HUGE = sycl.register_kernel_source(
    "__kernel __attribute__((reqd_work_group_size(1048576, 1, 1))) void kt_huge(__global int *a) {}"
)
FILL, TRANSPOSE = library.get_kernel_id("fill_int32"), library.get_kernel_id("transpose_float32")
BUILTIN_NAMED = sycl.register_kernel_source(
    "__kernel void normalize(__global float *a) { a[get_global_id(0)] *= 2; }"
)


def _buffer(q: sycl.queue, host: np.ndarray) -> cl.Buffer:
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    return cl.Buffer(q.get_context()._native, flags, hostbuf=host)


def _read(q: sycl.queue, buf: cl.Buffer, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    cl.enqueue_copy(q._native, out, buf)
    return out


def _expect_argument_error(q: sycl.queue, kernel: object, *args: object) -> str:
    with pytest.raises(sycl.exception) as info:
        q.parallel_for(sycl.range(4), kernel, *args).wait()
    assert info.value.code() is sycl.errc.kernel_argument
    return str(info.value)


# --- launching ------------------------------------------------------------------------------


def test_launch_by_name_id_and_kernel_object(queue: sycl.queue) -> None:
    """Item 7: a name, a kernel_id and a kernel run the same kernel; positional args."""
    host = np.ones(16, np.float32)
    buf = _buffer(queue, host)
    kb = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=SCALE)
    for kernel in ("kt_scale", SCALE[0], kb.get_kernel(SCALE[0])):
        queue.parallel_for(sycl.range(16), kernel, buf, 2).wait()
    assert _read(queue, buf, host).tolist() == [8.0] * 16


def test_launch_with_set_args_and_single_task(queue: sycl.queue) -> None:
    """Item 7: set_arg / set_args then a launch without arguments."""
    host = np.zeros(4, np.int32)
    buf = _buffer(queue, host)

    def cgf(h: sycl.handler) -> None:
        h.set_args(buf, 10)
        h.parallel_for(sycl.range(4), "kt_iota")

    queue.submit(cgf).wait()
    assert _read(queue, buf, host).tolist() == [10, 11, 12, 13]

    def one(h: sycl.handler) -> None:
        h.set_arg(1, np.int32(-5))
        h.set_arg(0, buf)
        h.single_task(SCALE[1])

    queue.submit(one).wait()
    assert _read(queue, buf, host).tolist() == [-5, 11, 12, 13]


def test_python_scalars_become_the_declared_types(queue: sycl.queue) -> None:
    """Item 7: Python int/float/bool to char..ulong (typedefs too), float, float4."""
    ints, floats = np.zeros(9, np.int64), np.zeros(3, np.float32)
    ibuf, fbuf = _buffer(queue, ints), _buffer(queue, floats)
    vec = cltypes.make_float4(1.5, 2.0, 3.0, 4.25)
    queue.single_task("kt_types", ibuf, fbuf, -3, 250, -30000, 60000, True, 4000000000,
                      -(2**40), 2**63 + 5, True, 7, vec).wait()
    assert _read(queue, ibuf, ints).tolist() == [
        -3, 250, -30000, 60000, 1, 4000000000, -(2**40), -(2**63) + 5, 77,
    ]
    assert _read(queue, fbuf, floats).tolist() == [7.0, 1.5, 4.25]


def test_wrong_arguments_name_the_parameter(queue: sycl.queue) -> None:
    """Item 7: errc.kernel_argument for the count, the type and the range."""
    buf = _buffer(queue, np.zeros(4, np.float32))
    assert "takes 2 argument(s)" in _expect_argument_error(queue, "kt_scale", buf)
    assert "got 3" in _expect_argument_error(queue, "kt_scale", buf, 1.0, 2.0)
    message = _expect_argument_error(queue, "kt_iota", buf, 1.5)
    assert "argument 1" in message and "start" in message and "int" in message
    assert "argument 0" in _expect_argument_error(queue, "kt_scale", 3, 1.0)
    assert "'s'" in _expect_argument_error(queue, "kt_scale", buf, buf) or "float s" in (
        _expect_argument_error(queue, "kt_scale", buf, buf)
    )
    ibuf = _buffer(queue, np.zeros(9, np.int64))
    fbuf = _buffer(queue, np.zeros(3, np.float32))
    vec = cltypes.make_float4(0, 0, 0, 0)
    message = _expect_argument_error(
        queue, "kt_types", ibuf, fbuf, 2.5, 0, 0, 0, 0, 0, 0, 0, False, 0.0, vec
    )
    assert "argument 2" in message and "char c" in message


def test_set_arg_errors_are_raised_at_submit(queue: sycl.queue) -> None:
    """A kernel object with too few arguments set raises kernel_argument, not a driver error."""
    buf = _buffer(queue, np.zeros(4, np.float32))

    def cgf(h: sycl.handler) -> None:
        h.set_args(buf)
        h.parallel_for(sycl.range(4), "kt_scale")

    with pytest.raises(sycl.exception) as info:
        queue.submit(cgf)
    assert info.value.code() is sycl.errc.kernel_argument


def test_local_memory_argument(queue: sycl.queue) -> None:
    """A pyopencl.LocalMemory for a __local parameter (library reduction)."""
    data = np.arange(64, dtype=np.float32)
    src, partial = _buffer(queue, data), _buffer(queue, np.zeros(4, np.float32))
    queue.parallel_for(
        sycl.nd_range(sycl.range(64), sycl.range(16)), library.get_kernel_id("reduce_sum_float32"),
        src, partial, cl.LocalMemory(16 * 4), 64,
    ).wait()
    sums = _read(queue, partial, np.zeros(4, np.float32))
    assert sums.tolist() == [data[i * 16:(i + 1) * 16].sum() for i in range(4)]


def test_empty_range_enqueues_nothing(queue: sycl.queue) -> None:
    """A zero-size global range completes without running the kernel."""
    host = np.ones(4, np.float32)
    buf = _buffer(queue, host)
    ev = queue.parallel_for(sycl.range(0), "kt_scale", buf, 5.0)
    ev.wait()
    status = ev.get_info(sycl.info.event.command_execution_status)
    assert status is sycl.info.event_command_status.complete
    assert _read(queue, buf, host).tolist() == [1.0] * 4


def test_concurrent_launches_of_one_kernel(queue: sycl.queue) -> None:
    """Thread safety: set_args + enqueue of a shared cl_kernel are atomic per launch."""
    hosts = [np.zeros(32, np.int32) for _ in range(8)]
    bufs = [_buffer(queue, h) for h in hosts]
    kernel = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=SCALE).get_kernel(SCALE[1])
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            for _ in range(10):
                queue.parallel_for(sycl.range(32), kernel, bufs[index], index * 100)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.wait()
    assert not errors
    for i, (host, buf) in enumerate(zip(hosts, bufs, strict=True)):
        assert _read(queue, buf, host).tolist() == [i * 100 + j for j in range(32)]


# --- what cannot run ---------------------------------------------------------------------


def test_incompatible_kernels_are_not_supported(queue: sycl.queue) -> None:
    """OKF-02, OKF-04: a missing aspect or a too large required work-group size."""
    buf = _buffer(queue, np.zeros(4, np.int32))
    for name in ("kt_never", "kt_huge"):
        with pytest.raises(sycl.exception) as info:
            queue.single_task(name, buf)
        assert info.value.code() is sycl.errc.kernel_not_supported and name in str(info.value)


def test_local_range_must_match_the_required_size(queue: sycl.queue) -> None:
    """OKF-04 / §4.9.4.2: a kernel with reqd_work_group_size(16, 16, 1) needs local (16, 16)."""
    buf = _buffer(queue, np.zeros(256, np.float32))
    with pytest.raises(sycl.exception) as info:
        queue.parallel_for(sycl.nd_range(sycl.range(16, 16), sycl.range(8, 8)), TRANSPOSE,
                           buf, buf, 16, 16)
    assert info.value.code() is sycl.errc.nd_range and "(16, 16)" in str(info.value)


def test_unknown_names_and_foreign_kernels_are_invalid(device_pair: list[sycl.device]) -> None:
    ctx_a, ctx_b = sycl.context(device_pair[0]), sycl.context(device_pair[0])
    q = sycl.queue(ctx_a, device_pair[0])
    buf = _buffer(q, np.zeros(4, np.int32))
    with pytest.raises(sycl.exception) as info:
        q.single_task("kt_no_such_kernel", buf)
    assert info.value.code() is sycl.errc.invalid
    foreign = sycl.get_kernel_bundle(E, ctx_b, kernel_ids=SCALE).get_kernel(SCALE[1])
    with pytest.raises(sycl.exception) as info:
        q.single_task(foreign, buf, 1)
    assert info.value.code() is sycl.errc.invalid and "context" in str(info.value)



def test_a_kernel_knows_only_the_devices_its_program_was_built_for(device_pair: list[sycl.device]) -> None:
    """A bundle built for one device of a two-device context: per-device queries and launches of
    its kernel are for that device only (NVIDIA's driver crashes on a per-device query for a
    device the program was not built for), and a launch by name on the other device builds the
    kernel's unit there."""
    d0, d1 = device_pair
    ctx = sycl.context(device_pair)
    iota = sycl.get_kernel_bundle(E, ctx, [d0], SCALE).get_kernel(SCALE[1])
    assert iota.get_info(sycl.info.kernel_device_specific.work_group_size, d0) > 0
    with pytest.raises(sycl.exception) as info:
        iota.get_info(sycl.info.kernel_device_specific.work_group_size, d1)
    assert info.value.code() is sycl.errc.invalid and "not built for" in str(info.value)
    q1 = sycl.queue(ctx, d1)
    buf = _buffer(q1, np.zeros(4, np.int32))
    with pytest.raises(sycl.exception) as info:
        q1.single_task(iota, buf, 0)
    assert info.value.code() is sycl.errc.invalid
    q1.parallel_for(sycl.range(4), "kt_iota", buf, 5).wait()
    assert _read(q1, buf, np.zeros(4, np.int32)).tolist() == [5, 6, 7, 8]


NOT_KERNELS = [["kt_scale"], {}, {"kt_scale"}, 3]


@pytest.mark.parametrize("spec", NOT_KERNELS, ids=repr)
def test_a_launch_of_what_is_not_a_kernel_says_what_a_kernel_may_be(queue: sycl.queue, spec: object) -> None:
    """§4.9.4.2: a kernel is a name, a kernel_id or a kernel; anything else, hashable or not,
    is errc.invalid naming the three, from every launch (shortcut, handler, bundle)."""
    kb = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=SCALE)
    launches = [
        lambda: queue.parallel_for(8, spec),
        lambda: queue.parallel_for(8, spec, depends_on=[]),
        lambda: queue.single_task(spec),
        lambda: queue.submit(lambda h: h.parallel_for(8, spec)),
        lambda: queue.submit(lambda h: h.single_task(spec)),
        lambda: queue.submit(lambda h: (h.use_kernel_bundle(kb), h.parallel_for(8, spec))),
    ]
    for launch in launches:
        with pytest.raises(sycl.exception) as info:
            launch()
        assert info.value.code() is sycl.errc.invalid
        message = str(info.value)
        assert all(what in message for what in ("name (str)", "sycl.kernel_id", repr(spec)))
        assert re.search(r"sycl\.kernel\b", message)


@pytest.mark.parametrize("spec", NOT_KERNELS, ids=repr)
def test_a_kernel_id_query_of_what_is_not_a_kernel_id_is_invalid(spec: object) -> None:
    """§4.11.6: get_kernel_id takes a name; the bundle queries a kernel_id or a name."""
    ctx = sycl.context()
    kb = sycl.get_kernel_bundle(E, ctx, kernel_ids=SCALE)
    queries = [
        lambda: sycl.get_kernel_id(spec),
        lambda: kb.has_kernel(spec),
        lambda: kb.get_kernel(spec),
        lambda: sycl.is_compatible([spec], ctx.get_devices()[0]),
        lambda: sycl.get_kernel_bundle(E, ctx, kernel_ids=[spec]),
    ]
    for query in queries:
        with pytest.raises(sycl.exception) as info:
            query()
        assert info.value.code() is sycl.errc.invalid and repr(spec) in str(info.value)


# --- use_kernel_bundle (§4.9.4.4) -----------------------------------------------------------


def test_use_kernel_bundle_runs_the_bundle_kernel(queue: sycl.queue) -> None:
    """KB-36."""
    host = np.zeros(4, np.int32)
    buf = _buffer(queue, host)
    kb = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=[SCALE[1]])

    def cgf(h: sycl.handler) -> None:
        h.use_kernel_bundle(kb)
        h.parallel_for(sycl.range(4), SCALE[1], buf, 3)

    queue.submit(cgf).wait()
    assert _read(queue, buf, host).tolist() == [3, 4, 5, 6]


def test_use_kernel_bundle_errors(device_pair: list[sycl.device]) -> None:
    """not executable / other context / other device -> invalid; kernel missing ->
    kernel_not_supported."""
    d0, d1 = device_pair
    ctx = sycl.context(device_pair)
    q = sycl.queue(ctx, d1)
    buf = _buffer(q, np.zeros(4, np.int32))
    cases = [
        (sycl.get_kernel_bundle(sycl.bundle_state.input, ctx, kernel_ids=SCALE), sycl.errc.invalid),
        (sycl.get_kernel_bundle(E, sycl.context(device_pair), kernel_ids=SCALE), sycl.errc.invalid),
        (sycl.get_kernel_bundle(E, ctx, [d0], SCALE), sycl.errc.invalid),
        (sycl.get_kernel_bundle(E, ctx, kernel_ids=[FILL]), sycl.errc.kernel_not_supported),
    ]
    for bundle, code in cases:

        def cgf(h: sycl.handler, b: sycl.kernel_bundle = bundle) -> None:
            h.use_kernel_bundle(b)
            h.parallel_for(sycl.range(4), "kt_iota", buf, 0)

        with pytest.raises(sycl.exception) as info:
            q.submit(cgf)
        assert info.value.code() is code, (bundle, info.value)


# --- the kernel object and its information (§4.11.13) ---------------------------------------


def test_kernel_object_semantics(queue: sycl.queue) -> None:
    """KN-01, KN-02, KN-03."""
    with pytest.raises(TypeError):
        sycl.kernel()
    ctx = queue.get_context()
    kb = sycl.get_kernel_bundle(E, ctx, kernel_ids=SCALE)
    k = kb.get_kernel(SCALE[0])
    assert k == kb.get_kernel(SCALE[0]) and hash(k) == hash(kb.get_kernel(SCALE[0]))
    assert k != kb.get_kernel(SCALE[1])
    assert k.get_context() is ctx and k.get_backend() is sycl.backend.opencl
    assert isinstance(sycl.get_native(k), cl.Kernel)
    own = k.get_kernel_bundle()
    assert own.state is E and own.has_kernel(SCALE[0]) and own.get_context() == ctx
    assert [p.name for p in k._params or ()] == ["a", "s"]


def test_kernel_info(queue: sycl.queue) -> None:
    """KN-05, item 4: info.kernel and info.kernel_device_specific from the driver."""
    dev = queue.get_device()
    plain = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=SCALE).get_kernel(SCALE[0])
    assert plain.get_info(sycl.info.kernel.num_args) == 2
    assert isinstance(plain.get_info(sycl.info.kernel.attributes), str)
    kds = sycl.info.kernel_device_specific
    wg = plain.get_info(kds.work_group_size, dev)
    driver = sycl.get_native(plain).get_work_group_info  # what clGetKernelWorkGroupInfo says
    assert wg == driver(cl.kernel_work_group_info.WORK_GROUP_SIZE, sycl.get_native(dev))
    assert 1 <= wg <= dev.get_info(sycl.info.device.max_work_group_size)
    assert tuple(plain.get_info(kds.compile_work_group_size, dev)) == (0, 0, 0)
    assert plain.get_info(kds.preferred_work_group_size_multiple, dev) == driver(
        cl.kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sycl.get_native(dev))
    assert plain.get_info(kds.private_mem_size, dev) >= 0
    device_groups = dev.get_info(sycl.info.device.max_num_sub_groups)
    assert 1 <= plain.get_info(kds.max_num_sub_groups, dev) <= device_groups
    device_sizes = dev.get_info(sycl.info.device.sub_group_sizes)
    assert plain.get_info(kds.max_sub_group_size, dev) <= max(device_sizes)
    assert plain.get_info(kds.compile_num_sub_groups, dev) == 0
    assert plain.get_info(kds.compile_sub_group_size, dev) == 0
    with pytest.raises(sycl.exception) as info:
        plain.get_info(kds.global_work_size, dev)
    assert info.value.code() is sycl.errc.invalid
    tiled = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=[TRANSPOSE])
    transpose = tiled.get_kernel(TRANSPOSE)
    assert tuple(transpose.get_info(kds.compile_work_group_size, dev)) == (1, 16, 16)


def test_max_num_sub_groups_is_at_least_one() -> None:
    """KN-05: a driver answering 0 sub-groups for a plain kernel (PoCL 5.0) is read as 1, and no
    answer exceeds the device's max_num_sub_groups."""
    assert sub_group_count(0, 8) == 1
    assert sub_group_count(0, 0) == 1  # a device without sub-groups: one per work-group
    assert sub_group_count(3, 8) == 3
    assert sub_group_count(16, 8) == 8


def test_kernels_with_hint_attributes_run(queue: sycl.queue) -> None:
    """KN-06: vec_type_hint / work_group_size_hint compile, run and show in attributes."""
    buf = _buffer(queue, np.zeros(8, np.int32))
    queue.parallel_for(sycl.range(8), HINTED[0], buf).wait()
    assert _read(queue, buf, np.zeros(8, np.int32)).tolist() == [2 * i for i in range(8)]
    k = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=HINTED).get_kernel(HINTED[0])
    attributes = k.get_info(sycl.info.kernel.attributes)
    assert attributes == "" or "work_group_size_hint" in attributes or "vec_type_hint" in attributes


def test_kernel_info_misuse(device_pair: list[sycl.device]) -> None:
    kb = sycl.get_kernel_bundle(E, sycl.context(device_pair[0]), kernel_ids=SCALE)
    k = kb.get_kernel(SCALE[0])
    for call in (
        lambda: k.get_info(sycl.info.kernel_device_specific.work_group_size),
        lambda: k.get_info(sycl.info.kernel_device_specific.work_group_size, device_pair[1]),
        lambda: k.get_info(sycl.info.device.name),
    ):
        with pytest.raises(sycl.exception) as info:
            call()
        assert info.value.code() is sycl.errc.invalid


def test_a_kernel_named_like_a_built_in_function(queue: sycl.queue) -> None:
    """A kernel named like an OpenCL C built-in (normalize) runs where the driver allows it
    (Oclgrind); where it does not (PoCL renames it), the error says why."""
    host = np.ones(4, np.float32)
    buf = _buffer(queue, host)
    try:
        queue.parallel_for(sycl.range(4), BUILTIN_NAMED[0], buf).wait()
    except sycl.exception as error:
        assert "'normalize' is the name of an OpenCL C built-in function" in str(error)
        assert "rename the kernel" in str(error)
    else:
        assert _read(queue, buf, host).tolist() == [2.0] * 4
        assert "Portable" not in queue.get_device().get_platform().get_info(sycl.info.platform.name)


STRUCT_ARG = sycl.register_kernel_source(
    """
    typedef struct { float a; int b; } kt_pair;
    __kernel void kt_struct(__global float *out, kt_pair p, float s)
    {
        out[get_global_id(0)] = p.a * p.b * s;
    }
    """
)


def test_a_struct_parameter_leaves_the_others_converted(queue: sycl.queue) -> None:
    """A by-value struct (no numpy type: passed as a numpy record) does not stop a Python float
    from converting for the kernel's float parameter."""
    host = np.zeros(4, np.float32)
    buf = _buffer(queue, host)
    pair = np.array((1.5, 2), dtype=[("a", np.float32), ("b", np.int32)])[()]
    queue.parallel_for(sycl.range(4), STRUCT_ARG[0], buf, pair, 2.0).wait()
    assert _read(queue, buf, host).tolist() == [6.0] * 4
