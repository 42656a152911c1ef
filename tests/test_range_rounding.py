"""The launch shape of ``range`` kernels: sycl_ocl chooses their work-group size (SYCL 2020
§4.9.4.2; docs/kernels.md "Launch shape of range kernels").

Every launch over a range must cover exactly the range, give each work-item the id it has
without rounding and let the kernel read the user's range, in 1-3 dimensions, through the
handler, the queue shortcuts (fast path and full) and command graphs. ``make test`` runs a
fixed sample of the sizes 1..2000; ``RANGE_SWEEP=full`` (``make fuzz``) runs them all.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from conftest import DEVICES
from kernel_support import child_json

import sycl_ocl as sycl
from sycl_ocl._kernel_bundle import range_launch

sycl.register_kernel_source(
    """
    // Reads only its id: the sizes come as arguments.
    __kernel void rr_axpy(__global float* y, __global const float* x, uint n0, uint n1) {
        size_t i = (get_global_id(2) * n1 + get_global_id(1)) * n0 + get_global_id(0);
        y[i] = y[i] + 2.0f * x[i];
    }
    #define RR_SIZE(d) get_global_size(d)
    // Reads the range (through a macro too), and the number of dimensions.
    __kernel void rr_sizes(__global ulong* out) {
        size_t i = (get_global_id(2) * RR_SIZE(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
        out[i] = (ulong)get_global_size(0) * 1000003ul + get_global_size(1) * 1009ul
                 + get_global_size(2) * 13ul + get_work_dim();
    }
    static size_t rr_width(void) { return get_global_size(0); }
    // A helper reads the range: the kernel keeps the driver's choice.
    __kernel void rr_helper_size(__global uint* out) {
        out[get_global_id(0)] = (uint)rr_width();
    }
    // Reads its work-group: keeps the driver's choice.
    __kernel void rr_local(__global uint* out) {
        out[get_global_id(0)] = (uint)(get_group_id(0) * get_local_size(0) + get_local_id(0));
    }
    __kernel __attribute__((reqd_work_group_size(1, 1, 1))) void rr_reqd(__global uint* out) {
        out[get_global_id(0)] = 7;
    }
    __kernel void rr_usm(__global int* p, int w) { p[get_global_id(0)] += w; }
    """
)

SWEEP = os.environ.get("RANGE_SWEEP", "") == "full"


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def _prime_below(n: int) -> int:
    return next(p for p in range(n - 1, 1, -1) if _is_prime(p))


# Primes up to 2^24 (the largest below it), 2 x a prime, and powers of two around them.
PRIMES = [2, 3, 31, 251, 257, 4099, 65537, 1048573, _prime_below(1 << 24)]


def sizes_1d() -> list[int]:
    """Every size 1..2000 under RANGE_SWEEP=full, else a fixed sample (the same each run)."""
    if SWEEP:
        return list(range(1, 2001))
    sample = random.Random(32).sample(range(1, 2001), 24)
    return sorted({1, 2, 255, 256, 257, 1000, 1024, 2000, *sample})


def simulated(q: sycl.queue) -> bool:
    """Whether the queue's device is Oclgrind, which simulates each work-item (slowly)."""
    return "Oclgrind" in q.get_device().get_platform().get_info(sycl.info.platform.name)


def sizes_nd(dims: int, small: bool) -> list[tuple[int, ...]]:
    """Ranges of ``dims`` dimensions (SYCL order) with awkward sizes in every dimension
    (``small``: up to 50 per dimension, for Oclgrind)."""
    rng = random.Random(dims)
    count = 400 if SWEEP else 12
    edge = 50 if small else 2000 if dims == 2 else 130
    shapes = {(1,) * dims, (7,) * dims, (257,) + (1,) * (dims - 1), (1,) * (dims - 1) + (257,)}
    shapes |= {tuple(rng.randint(1, edge) for _ in range(dims)) for _ in range(count)}
    return sorted(shapes)


def axpy(q: sycl.queue, shape: tuple[int, ...]) -> None:
    """``y += 2 x`` over the range ``shape`` through the handler, against numpy."""
    x = np.random.default_rng(len(shape)).random(shape, dtype=np.float32)
    y = np.ones(shape, dtype=np.float32)
    cl = (*reversed(shape), 1, 1)
    with sycl.buffer(y) as by, sycl.buffer(x) as bx:
        q.submit(lambda h: h.parallel_for(sycl.range(*shape), "rr_axpy", sycl.accessor(by, h),
                                          sycl.accessor(bx, h, sycl.read_only), np.uint32(cl[0]),
                                          np.uint32(cl[1])))
    np.testing.assert_array_equal(y, np.float32(1) + np.float32(2) * x, err_msg=f"range {shape}")


def expected_sizes(shape: tuple[int, ...]) -> int:
    cl = (*reversed(shape), 1, 1)
    return cl[0] * 1000003 + cl[1] * 1009 + cl[2] * 13 + len(shape)


def read_sizes(q: sycl.queue, shape: tuple[int, ...]) -> None:
    """A kernel reading ``get_global_size`` sees the user's range."""
    out = np.zeros(shape, dtype=np.uint64)
    with sycl.buffer(out) as b:
        q.submit(lambda h: h.parallel_for(sycl.range(*shape), "rr_sizes",
                                          sycl.accessor(b, h, sycl.write_only)))
    assert (out == expected_sizes(shape)).all(), f"range {shape}: {np.unique(out)}"


def test_every_size_in_one_dimension(queue: sycl.queue) -> None:
    for n in sizes_1d():
        axpy(queue, (n,))
        read_sizes(queue, (n,))


@pytest.mark.parametrize("dims", [2, 3])
def test_awkward_sizes_in_two_and_three_dimensions(queue: sycl.queue, dims: int) -> None:
    for shape in sizes_nd(dims, simulated(queue)):
        axpy(queue, shape)
        read_sizes(queue, shape)


def test_primes_up_to_2_24(queue: sycl.queue) -> None:
    big = 5000 if simulated(queue) else 1 << 25
    for n in (p for p in PRIMES if p < big):
        axpy(queue, (n,))
        read_sizes(queue, (n,))
    shapes = ((31, 3), (2, 7, 3)) if simulated(queue) else (
        (8191, 131), (2, 8191), (127, 31, 257), (3, 2, 4099))
    for shape in shapes:
        axpy(queue, shape)
        read_sizes(queue, shape)


def test_a_prime_range_runs_in_whole_work_groups_of_our_choice(queue: sycl.queue) -> None:
    """White box: the launch the handler records for a prime range (the guarded variant over
    whole work-groups); a range of whole work-groups runs the kernel as it is."""
    k = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context()).get_kernel(
        sycl.get_kernel_id("rr_axpy"))
    dev = queue.get_device()
    launched, global_size, local_size = range_launch.range_launch(k, dev, (65537,), 0)
    assert type(launched) is range_launch.Guarded and launched.tail == (65537, 1, 1)
    assert local_size is not None and global_size[0] % local_size[0] == 0
    group = min(range_launch.preferred_group(dev), dev.get_info(sycl.info.device.max_work_group_size))
    assert global_size[0] - 65537 < local_size[0] and local_size[0] == group
    launched, global_size, local_size = range_launch.range_launch(k, dev, (1 << 16,), 0)
    assert (launched, global_size, local_size) == (k, (1 << 16,), (group,))
    launched, global_size, local_size = range_launch.range_launch(k, dev, (3, 8191), 0)
    assert local_size == (4, group // 4) and global_size == (4, -(-8191 // (group // 4)) * (group // 4))
    assert range_launch.range_launch(k, None, (65537,), 0) == (k, (65537,), None)


@pytest.mark.parametrize("name", ["rr_helper_size", "rr_local"])
def test_kernels_that_read_the_launch_keep_the_drivers_choice(queue: sycl.queue, name: str) -> None:
    """A kernel whose helper reads the range, one that reads its work-group: launched as a
    plain OpenCL launch, with its results."""
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context())
    k = bundle.get_kernel(sycl.get_kernel_id(name))
    assert range_launch.range_launch(k, queue.get_device(), (257,), 0) == (k, (257,), None)
    out = np.zeros(257, dtype=np.uint32)
    with sycl.buffer(out) as b:
        queue.submit(lambda h: h.parallel_for(257, name, sycl.accessor(b, h)))
    want = {"rr_helper_size": np.full(257, 257), "rr_local": np.arange(257)}
    np.testing.assert_array_equal(out, want[name])
    reqd = bundle.get_kernel(sycl.get_kernel_id("rr_reqd"))  # a required work-group size: that one
    assert range_launch.range_launch(reqd, queue.get_device(), (256,), 0) == (reqd, (256,), (1,))


def test_a_ranged_accessor_with_an_offset(queue: sycl.queue) -> None:
    """Over a prime range, an accessor at an offset: exactly its window changes."""
    n, offset = 257, 5
    y = np.ones(n + 2 * offset, dtype=np.float32)
    x = np.arange(n + 2 * offset, dtype=np.float32)
    with sycl.buffer(y) as by, sycl.buffer(x) as bx:
        queue.submit(lambda h: h.parallel_for(
            n, "rr_axpy", sycl.accessor(by, h, access_range=(n,), access_offset=(offset,)),
            sycl.accessor(bx, h, sycl.read_only, access_range=(n,), access_offset=(offset,)),
            np.uint32(n), np.uint32(1)))
    want = np.ones_like(y)
    want[offset:offset + n] += 2 * x[offset:offset + n]
    np.testing.assert_array_equal(y, want)


def test_repeated_launches_of_one_shape(queue: sycl.queue) -> None:
    """The same command group again (a kept shape, rule S20) over an awkward range."""
    out = np.zeros(1009, dtype=np.float32)
    x = np.ones(1009, dtype=np.float32)
    with sycl.buffer(out) as bo, sycl.buffer(x) as bx:
        for _ in range(5):
            queue.submit(lambda h: h.parallel_for(1009, "rr_axpy", sycl.accessor(bo, h), sycl.accessor(bx, h),
                                                  np.uint32(1009), np.uint32(1)))
    np.testing.assert_array_equal(out, np.full(1009, 10, dtype=np.float32))


@pytest.mark.parametrize("rounding", [True, False], ids=["rounding", "no_range_rounding"])
def test_command_graph_nodes(device: sycl.device, rounding: bool) -> None:
    props = [sycl.property.queue.in_order()] + ([] if rounding else [sycl.property.queue.no_range_rounding()])
    q = sycl.queue(device, prop_list=props)
    exp = sycl.ext.oneapi.experimental
    y = np.zeros((31, 257), dtype=np.float32)
    x = np.ones((31, 257), dtype=np.float32)
    sizes = np.zeros(65537, dtype=np.uint64)
    with sycl.buffer(y) as by, sycl.buffer(x) as bx, sycl.buffer(sizes) as bs:
        g = exp.command_graph(q)
        g.begin_recording(q)
        q.submit(lambda h: h.parallel_for(sycl.range(31, 257), "rr_axpy", sycl.accessor(by, h),
                                          sycl.accessor(bx, h), np.uint32(257), np.uint32(31)))
        q.submit(lambda h: h.parallel_for(65537, "rr_sizes", sycl.accessor(bs, h)))
        g.end_recording()
        added = exp.command_graph(q.get_context(), q.get_device())
        added.add(lambda h: h.parallel_for(sycl.range(31, 257), "rr_axpy", sycl.accessor(by, h),
                                           sycl.accessor(bx, h), np.uint32(257), np.uint32(31)))
        replay, other = g.finalize(), added.finalize()
        for _ in range(2):
            q.ext_oneapi_graph(replay)
        q.ext_oneapi_graph(other)
    np.testing.assert_array_equal(y, np.full((31, 257), 6, dtype=np.float32))
    assert (sizes == expected_sizes((65537,))).all()


def test_usm_shortcuts(queue: sycl.queue) -> None:
    """``q.parallel_for(n, kernel, p, w)``: the fast path over sizes that change between
    launches (awkward, whole work-groups, awkward again), and the full path (``depends_on``)."""
    if not queue.get_device().has(sycl.aspect.usm_device_allocations):
        pytest.skip("the device has no USM device allocations")
    n = 4099
    p = sycl.malloc_device(count=n, dtype=np.int32, q=queue)
    try:
        queue.memset(p, 0, 4 * n).wait()
        w = np.int32(1)
        for size in (4099, 1, 4096, 257, 4099, 257):
            queue.parallel_for(size, "rr_usm", p, w).wait()
        ev = queue.parallel_for(sycl.range(4097), "rr_usm", p, np.int32(10))
        queue.parallel_for(65, "rr_usm", p, np.int32(100), depends_on=ev).wait()
        queue.single_task("rr_usm", p, np.int32(1000)).wait()
        assert queue._shortcuts["rr_usm"].variants  # the fast path ran the guarded variant
        got = np.zeros(n, dtype=np.int32)
        queue.memcpy(got, p, 4 * n).wait()
    finally:
        sycl.free(p, queue)
    want = np.zeros(n, dtype=np.int64)
    for size, value in ((4099, 1), (1, 1), (4096, 1), (257, 1), (4099, 1), (257, 1), (4097, 10), (65, 100),
                        (1, 1000)):
        want[:size] += value
    np.testing.assert_array_equal(got, want)


def test_a_reduction_over_a_prime_range(queue: sycl.queue) -> None:
    """Reductions over a range choose their work-groups already (docs/reductions.md)."""
    data = np.arange(65537, dtype=np.int64) % 1000
    total = np.zeros(1, dtype=np.int64)
    init = sycl.property.reduction.initialize_to_identity()
    sycl.register_kernel_source(
        "__kernel void rr_sum(SYCL_REDUCER(long, s), __global const long* x)"
        " { SYCL_COMBINE(s, x[get_global_id(0)]); }")
    with sycl.buffer(data) as bd, sycl.buffer(total) as bt:
        queue.submit(lambda h: h.parallel_for(
            65537, sycl.reduction(bt, h, sycl.plus(), prop_list=[init]),
            "rr_sum", sycl.accessor(bd, h, sycl.read_only)))
    assert int(total[0]) == int(data.sum())


def test_off_by_property_and_by_environment(device: sycl.device, monkeypatch: pytest.MonkeyPatch) -> None:
    """Either switch gives the plain OpenCL launch, with the same results."""
    q = sycl.queue(device, prop_list=[sycl.property.queue.no_range_rounding()])
    assert not q._rounding and sycl.queue(device)._rounding
    axpy(q, (257,))
    read_sizes(q, (3, 257))
    monkeypatch.setenv("SYCL_OCL_RANGE_ROUNDING", "0")
    q = sycl.queue(device)
    assert not q._rounding
    axpy(q, (257,))


BUILDS = """
import json, os
import numpy as np
import sycl_ocl as sycl
sycl.register_kernel_source("__kernel void rr_count(__global int* p) { p[get_global_id(0)] += 1; }")
q = sycl.queue(sycl.device(
    lambda d: 1 if "Portable" in d.get_platform().get_info(sycl.info.platform.name) else -1))
data = np.zeros(5000, dtype=np.int32)
sizes = [SIZES]
with sycl.buffer(data) as b:
    for n in sizes:
        q.submit(lambda h: h.parallel_for(n, "rr_count", sycl.accessor(b, h)))
want = np.zeros(5000, dtype=np.int32)
for n in sizes:
    want[:n] += 1
builds = sum(name.endswith(".so") for _, _, names in os.walk(os.environ["POCL_CACHE_DIR"]) for name in names)
print(json.dumps({"builds": builds, "right": bool((data == want).all())}))
"""


ON_POCL = any("Portable" in d.get_platform().get_info(sycl.info.platform.name) for d in DEVICES)


@pytest.mark.skipif(not ON_POCL, reason="counts PoCL's builds (one per work-group size it runs with)")
@pytest.mark.parametrize("rounding", ["1", "0"])
def test_one_kernel_over_100_sizes_builds_a_bounded_number_of_times(tmp_path: os.PathLike[str],
                                                                    rounding: str) -> None:
    """PoCL compiles a kernel for each work-group size it runs it with: the driver's choice
    follows the size, ours does not."""
    sizes = ",".join(str(n) for n in random.Random(100).sample(range(300, 5000), 100))
    env = {"POCL_CACHE_DIR": str(tmp_path / "pocl"), "SYCL_OCL_CACHE_DIR": str(tmp_path / "sycl"),
           "SYCL_OCL_RANGE_ROUNDING": rounding, "POCL_DEVICES": "pthread"}
    found = child_json(BUILDS.replace("SIZES", sizes), env=env)
    assert found["right"]
    if rounding == "1":
        # Per program (the kernel's and its variant's): its generic build (0-0-0) and one per
        # work-group size of ours, powers of two (here 512 to 4096: ranges below 4096 get one
        # work-group of the least power of two that holds them).
        assert found["builds"] <= 2 * (1 + 4), found
    else:
        assert found["builds"] > 50, found  # what the test guards against


def test_a_variant_that_fails_to_compile_runs_the_kernel_as_it_is(queue: sycl.queue,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A rewrite gone wrong costs speed, never results, and one failed build per kernel and device."""
    sycl.register_kernel_source("__kernel void rr_broken(__global int* p) { p[get_global_id(0)] += 3; }")
    broken = "#error a broken variant\n"
    real = range_launch.read_unit
    monkeypatch.setattr(range_launch, "read_unit", lambda text, *rest: real(broken + text, *rest))
    data = np.zeros(257, dtype=np.int32)
    with sycl.buffer(data) as b:
        queue.submit(lambda h: h.parallel_for(257, "rr_broken", sycl.accessor(b, h)))
        builds = sycl.tools.build_cache_stats()["disk_misses"]  # each build from source counts
        for n in (251, 241, 239):  # no build again (failed: one at each launch of a new shape)
            queue.submit(lambda h, n=n: h.parallel_for(n, "rr_broken", sycl.accessor(b, h)))
        assert sycl.tools.build_cache_stats()["disk_misses"] == builds
    np.testing.assert_array_equal(data, np.repeat([12, 9, 6, 3], [239, 2, 10, 6]))



# --- rewrites the guarded variant must not get wrong (each checked against what it computes) ----

sycl.register_kernel_source(
    # A line comment ending in a backslash goes on (C joins the lines first); CRLF lines too.
    "__kernel void rr_cont(__global int* a) {\n"
    "    a[get_global_id(0)] = 1; // a note \\\n"
    "    a[get_global_id(0)] = 2;\n"
    "    a[get_global_id(0)] += 10; // with a space \\ \n"
    "    a[get_global_id(0)] += 100;\r\n"
    "    a[get_global_id(0)] += 1000; // and CRLF \\\r\n"
    "    a[get_global_id(0)] += 10000;\r\n"
    "}\n"
)
sycl.register_kernel_source(
    """
    #if 0
    __kernel void rr_dead(__global int* a) { a[get_global_id(0)] = -1; }
    #else
    __kernel void rr_dead(__global int* a) { a[get_global_id(0)] = (int)get_global_size(0); }
    #endif
    #define RR_OPEN {
    __kernel void rr_open(__global int* a) {
        if (get_global_id(0) < 100000) RR_OPEN
            a[get_global_id(0)] = 0;
        }
        a[get_global_id(0)] = (int)get_global_size(0);
    }
    // get_global_size(d) with d's side effect: once, as for the built-in.
    __kernel void rr_side(__global int* a) {
        uint d = 1;
        size_t rows = get_global_size(d++);
        a[get_global_id(1) * get_global_size(0) + get_global_id(0)] = (int)(rows * 10 + d);
    }
    """
)
sycl.register_kernel_source(
    """
    __kernel void rr_callee(__global int* a) { a[get_global_id(0)] += 1; }
    __kernel void rr_caller(__global int* a) { rr_callee(a); a[get_global_id(0)] += 10; }
    __kernel void rr_proto(__global int* a);
    __kernel void rr_proto(__global int* a) { a[get_global_id(0)] = (int)get_global_size(0); }
    __kernel void rr_after(__global int* a) __attribute__((reqd_work_group_size(1, 1, 1))) {
        a[get_global_id(0)] = 7;
    }
    """
)


def launch_over(q: sycl.queue, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """What kernel ``name`` writes over the range ``shape`` (one int per work-item)."""
    out = np.zeros(shape, dtype=np.int32)
    with sycl.buffer(out) as b:
        q.submit(lambda h: h.parallel_for(sycl.range(*shape), name, sycl.accessor(b, h)))
    return out


def test_a_line_comment_continued_by_a_backslash(queue: sycl.queue) -> None:
    """The variant's text drops comments as the compiler does: a ``//`` comment whose line ends
    in a backslash swallows the next line (failed: the variant ran it)."""
    for n in (256, 257):  # the kernel as it is (whole work-groups), its variant
        np.testing.assert_array_equal(launch_over(queue, "rr_cont", (n,)), np.full(n, 1011))


def test_a_reduction_kernel_with_a_continued_comment(queue: sycl.queue) -> None:
    """The reduction variant's text too (the same comment stripping)."""
    sycl.register_kernel_source(
        "__kernel void rr_cont_sum(SYCL_REDUCER(int, s)) {\n"
        "    SYCL_COMBINE(s, 1); // a note \\\n"
        "    SYCL_COMBINE(s, 1000);\n"
        "}\n")
    total = np.zeros(1, dtype=np.int32)
    with sycl.buffer(total) as bt:
        queue.submit(lambda h: h.parallel_for(257, sycl.reduction(bt, h, sycl.plus()), "rr_cont_sum"))
    assert int(total[0]) == 257


@pytest.mark.parametrize("name", ["rr_dead", "rr_open"])
def test_heads_and_braces_the_preprocessor_moves(queue: sycl.queue, name: str) -> None:
    """A kernel whose text head lies in an ``#if`` branch not taken (failed: its launch raised
    errc.kernel_argument), one whose body a macro's brace closes later than the text shows
    (failed: the range read after it was the rounded one): as they are, with their results."""
    np.testing.assert_array_equal(launch_over(queue, name, (257,)), np.full(257, 257))
    k = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context()).get_kernel(
        sycl.get_kernel_id(name))
    assert range_launch.range_launch(k, queue.get_device(), (257,), 0) == (k, (257,), None)


def test_a_dimension_argument_with_a_side_effect(queue: sycl.queue) -> None:
    """``get_global_size(d++)`` reads d once (failed: up to three times, and the wrong size)."""
    np.testing.assert_array_equal(launch_over(queue, "rr_side", (3, 31)), np.full((3, 31), 32))


def test_kernels_a_function_calls_and_kernels_declared_first(queue: sycl.queue) -> None:
    """A kernel another kernel calls, or declared ahead of its definition, keeps its head (the
    call, the declaration pass no range) and the others of its unit are served (failed: the
    variant did not build, again at every launch of each kernel of the unit)."""
    ctx, dev = queue.get_context(), queue.get_device()
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx)
    callee, caller, proto = (bundle.get_kernel(sycl.get_kernel_id(n))
                             for n in ("rr_callee", "rr_caller", "rr_proto"))
    np.testing.assert_array_equal(launch_over(queue, "rr_caller", (257,)), np.full(257, 11))
    np.testing.assert_array_equal(launch_over(queue, "rr_callee", (257,)), np.full(257, 1))
    assert type(range_launch.range_launch(caller, dev, (257,), 0)[0]) is range_launch.Guarded
    assert range_launch.range_launch(callee, dev, (257,), 0) == (callee, (257,), None)
    np.testing.assert_array_equal(launch_over(queue, "rr_proto", (257,)), np.full(257, 257))
    assert range_launch.range_launch(proto, dev, (257,), 0) == (proto, (257,), None)


def test_a_required_work_group_size_after_the_parameters(queue: sycl.queue) -> None:
    """The required size is the driver's (CL_KERNEL_COMPILE_WORK_GROUP_SIZE), wherever the
    attribute is (failed: the launch asked for work-groups of its own, CL_INVALID_WORK_GROUP_SIZE);
    ``reqd_work_group_size`` ahead of the head too (failed on PoCL 3.1, which gives such a
    launch a size of its own when given none)."""
    np.testing.assert_array_equal(launch_over(queue, "rr_after", (257,)), np.full(257, 7))
    out = np.zeros(256, dtype=np.uint32)
    with sycl.buffer(out) as b:
        queue.submit(lambda h: h.parallel_for(256, "rr_reqd", sycl.accessor(b, h)))
    np.testing.assert_array_equal(out, np.full(256, 7))
