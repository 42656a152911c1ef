"""Kernel ids, bundles and their queries (SYCL 2020 §4.11.1-§4.11.9, §4.11.12).

Kernels registered here have names starting with ``kb_``; every one builds on its own, so
they never break another test's ``get_kernel_bundle(ctx)``.
"""

from __future__ import annotations

import copy

import numpy as np
import pyopencl as cl
import pytest
from kernel_support import child_json, platform_devices

import sycl_ocl as sycl
from sycl_ocl import library
from sycl_ocl.tools import build_cache_stats

E = sycl.bundle_state.executable
I = sycl.bundle_state.input  # noqa: E741 (the spec's name)
O = sycl.bundle_state.object  # noqa: E741

ADD_MUL = sycl.register_kernel_source(
    """
    // kb_add and kb_mul share one image (one translation unit)
    __kernel void kb_add(__global int *a, int v) { a[get_global_id(0)] += v; }
    __kernel void kb_mul(__global int *a, int v) { a[get_global_id(0)] *= v; }
    """
)
EXT = sycl.register_kernel_source("__kernel void kb_ext(__global int *a) { a[0] = 42; }")
NEVER = sycl.register_kernel_source(
    "__kernel void kb_never(__global int *a) { a[0] = 1; }",
    device_has=[sycl.aspect.cpu, sycl.aspect.gpu],  # no device is both: compatible with none
)
# One trivial unit per aspect (KB-24): compatible exactly with the devices having it.
PER_ASPECT = {
    a: sycl.register_kernel_source(
        f"__kernel void kb_needs_{a.name}(__global int *a) {{ a[0] = 1; }}", device_has=[a]
    )[0]
    for a in sycl.aspect
}
HUGE_WG = sycl.register_kernel_source(
    "__kernel __attribute__((reqd_work_group_size(1048576, 1, 1))) void kb_huge(__global int *a) {}"
)
# No device has sub-groups of 4099 work-items.
HUGE_SG = sycl.register_kernel_source(
    "__attribute__((intel_reqd_sub_group_size(4099))) __kernel void kb_sg_huge(__global int *a) { a[0] = 1; }"
)


def _ids(bundle: sycl.kernel_bundle) -> set[str]:
    return {k.get_name() for k in bundle.get_kernel_ids()}


def _run_add(q: sycl.queue, kernel: object, bundle: sycl.kernel_bundle | None = None) -> np.ndarray:
    host = np.arange(8, dtype=np.int32)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    buf = cl.Buffer(q.get_context()._native, flags, hostbuf=host)

    def cgf(h: sycl.handler) -> None:
        if bundle is not None:
            h.use_kernel_bundle(bundle)
        h.parallel_for(sycl.range(8), kernel, buf, 5)

    q.submit(cgf).wait()
    cl.enqueue_copy(q._native, host, buf)
    return host


# --- kernel_id (§4.11.5, §4.11.6) ----------------------------------------------------------


def test_kernel_id_is_not_constructible() -> None:
    """KB-12: no public constructor."""
    with pytest.raises(TypeError):
        sycl.kernel_id()


def test_kernel_id_identity_name_and_hash() -> None:
    """KB-13: one id per kernel; get_name is the __kernel name."""
    add = sycl.get_kernel_id("kb_add")
    assert add == sycl.get_kernel_id("kb_add") and add is ADD_MUL[0]
    assert add != sycl.get_kernel_id("kb_mul")
    assert add.get_name() == "kb_add"
    assert {add: 1}[sycl.get_kernel_id("kb_add")] == 1
    assert len({add, sycl.get_kernel_id("kb_add"), ADD_MUL[1]}) == 2


def test_get_kernel_id_of_unknown_name_is_invalid() -> None:
    """an undefined kernel name raises errc.invalid."""
    with pytest.raises(sycl.exception) as info:
        sycl.get_kernel_id("kb_no_such_kernel")
    assert info.value.code() is sycl.errc.invalid
    assert "register" in str(info.value) and "did you mean" not in str(info.value)


def test_a_misspelt_kernel_name_suggests_the_registered_one(queue: sycl.queue) -> None:
    """By id lookup and by launch: the message names the closest registered kernel."""
    sycl.register_kernel_source("__kernel void kb_u6_scale(__global int *a) { a[0] *= 2; }")
    with pytest.raises(sycl.exception, match="did you mean 'kb_u6_scale'") as info:
        sycl.get_kernel_id("kb_u6_scael")
    assert info.value.code() is sycl.errc.invalid
    with pytest.raises(sycl.exception, match="did you mean 'kb_u6_scale'"):
        queue.single_task("kb_u6_scal").wait()


def test_get_kernel_ids_are_application_kernels_only(device: sycl.device) -> None:
    """every registered kernel and no built-in one."""
    ids = sycl.get_kernel_ids()
    assert set(ADD_MUL + EXT + NEVER) <= set(ids)
    assert len(set(ids)) == len(ids)
    builtins = set(device.get_info(sycl.info.device.built_in_kernel_ids))
    assert not builtins & set(ids)
    assert not set(library.get_kernel_ids()) & set(ids)  # the shipped kernels are not the application's


def test_registering_a_name_twice_is_invalid() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.register_kernel_source("__kernel void kb_add(__global int *a) {}")
    assert info.value.code() is sycl.errc.invalid and "kb_add" in str(info.value)


def test_registering_the_same_unit_again_gives_the_same_ids() -> None:
    """A notebook cell run twice: the same text with the same options is the same unit; the
    same kernel names in another text, or with other options, are still taken."""
    source = "__kernel void kb_rerun(__global int *a) { a[0] = N; }"
    first = sycl.register_kernel_source(source, options=["-DN=1"])
    assert sycl.register_kernel_source(source, options=["-DN=1"]) == first
    assert sycl.get_kernel_ids().count(first[0]) == 1
    for other_text, options in ((source + "\n", ["-DN=1"]), (source, ["-DN=2"])):
        with pytest.raises(sycl.exception) as info:
            sycl.register_kernel_source(other_text, options=options)
        assert info.value.code() is sycl.errc.invalid and "kb_rerun" in str(info.value)


def test_registering_a_unit_without_kernels_or_functions_is_invalid() -> None:
    for source in ("static int kb_private(int x) { return x; }", "typedef int kb_nothing;"):
        with pytest.raises(sycl.exception) as info:
            sycl.register_kernel_source(source)
        assert info.value.code() is sycl.errc.invalid


def test_register_kernel_file(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "unit.cl"
    path.write_text("__kernel void kb_from_file(__global float *a) { a[0] = 1.0f; }\n")
    ids = sycl.register_kernel_file(path)
    assert [k.get_name() for k in ids] == ["kb_from_file"]
    with pytest.raises(sycl.exception) as info:
        sycl.register_kernel_file(Path(str(tmp_path)) / "missing.cl")
    assert info.value.code() is sycl.errc.invalid


def test_device_has_takes_aspects_only() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.register_kernel_source("__kernel void kb_bad_aspect() {}", device_has=["fp64"])
    assert info.value.code() is sycl.errc.invalid


# --- bundle basics (§4.11.3, §4.11.4, §4.11.12) ------------------------------------------------


def test_bundle_state_has_three_members() -> None:
    """bundle_state has input, object and executable, in that order (§4.11.5)."""
    assert [s.name for s in sycl.bundle_state] == ["input", "object", "executable"]


def test_bundle_and_image_are_not_constructible() -> None:
    """KB-01 / KB-10."""
    with pytest.raises(TypeError):
        sycl.kernel_bundle()
    with pytest.raises(TypeError):
        sycl.device_image()


def test_executable_bundle_of_a_context(queue: sycl.queue) -> None:
    """KB-02/03/04/06: every compatible application kernel, no built-ins."""
    ctx, dev = queue.get_context(), queue.get_device()
    kb = sycl.get_kernel_bundle(E, ctx)
    assert kb.state is E and kb.get_backend() is sycl.backend.opencl
    assert kb.get_context() == ctx and kb.get_devices() == ctx.get_devices() == [dev]
    names = _ids(kb)
    assert {"kb_add", "kb_mul", "kb_ext"} <= names
    assert not set(kb.get_kernel_ids()) & set(library.get_kernel_ids())  # nor built with them
    assert "kb_never" not in names and "kb_huge" not in names
    assert len(kb.get_kernel_ids()) >= 4
    for kid in kb.get_kernel_ids():
        assert kb.has_kernel(kid, dev) == sycl.is_compatible([kid], dev)
    for bik in dev.get_info(sycl.info.device.built_in_kernel_ids):
        assert not kb.has_kernel(bik)
    assert not kb.empty()
    assert all(isinstance(img, sycl.device_image) for img in kb)


def test_bundle_devices_are_deduplicated(queue: sycl.queue) -> None:
    """KB-65."""
    dev = queue.get_device()
    kb = sycl.get_kernel_bundle(E, queue.get_context(), [dev, dev], [ADD_MUL[0]])
    assert kb.get_devices() == [dev]


@pytest.mark.parametrize("state", list(sycl.bundle_state))
def test_empty_device_list_is_invalid(queue: sycl.queue, state: sycl.bundle_state) -> None:
    """An empty device list is errc.invalid for every form (§4.11.7)."""
    ctx = queue.get_context()
    for call in (
        lambda: sycl.get_kernel_bundle(state, ctx, []),
        lambda: sycl.get_kernel_bundle(state, ctx, [], [ADD_MUL[0]]),
        lambda: sycl.get_kernel_bundle(state, ctx, [], selector=lambda img: True),
        lambda: sycl.has_kernel_bundle(state, ctx, []),
        lambda: sycl.has_kernel_bundle(state, ctx, [], [ADD_MUL[0]]),
    ):
        with pytest.raises(sycl.exception) as info:
            call()
        assert info.value.code() is sycl.errc.invalid


def test_device_outside_the_context_is_invalid() -> None:
    """a device of another platform."""
    platforms = sycl.platform.get_platforms()
    if len(platforms) < 2:
        pytest.skip("needs two OpenCL platforms")
    ctx, foreign = sycl.context(platforms[0].get_devices()[0]), platforms[1].get_devices()[0]
    for state in sycl.bundle_state:
        with pytest.raises(sycl.exception) as info:
            sycl.get_kernel_bundle(state, ctx, [foreign])
        assert info.value.code() is sycl.errc.invalid and "not a device" in str(info.value)
        with pytest.raises(sycl.exception):
            sycl.has_kernel_bundle(state, ctx, [foreign], [ADD_MUL[0]])


def test_sub_device_of_a_context_device_is_accepted(device: sycl.device) -> None:
    """a sub-device descends from a context device."""
    root = device
    equally = sycl.info.partition_property.partition_equally
    if equally not in root.get_info(sycl.info.device.partition_properties):
        pytest.skip(f"{root!r} cannot be partitioned equally (no sub-devices)")
    sub = root.create_sub_devices(sycl.info.partition_property.partition_equally, 1)[0]
    ctx = sycl.context(root)
    kb = sycl.get_kernel_bundle(I, ctx, [sub], [ADD_MUL[0]])
    assert kb.get_devices() == [sub] and kb.has_kernel(ADD_MUL[0])


def test_kernel_ids_overload_takes_whole_images(queue: sycl.queue) -> None:
    """asking for kb_add also brings kb_mul, usable without another build."""
    ctx, dev = queue.get_context(), queue.get_device()
    kb = sycl.get_kernel_bundle(E, ctx, [dev], [ADD_MUL[0]])
    assert kb.has_kernel(ADD_MUL[1]) and not kb.has_kernel(EXT[0])
    assert _ids(sycl.get_kernel_bundle(E, ctx, kernel_ids=[ADD_MUL[0]])) == _ids(kb)
    builds = build_cache_stats()["memory_builds"]
    mul = kb.get_kernel(ADD_MUL[1])
    assert _run_add(queue, mul).tolist() == [i * 5 for i in range(8)]
    assert build_cache_stats()["memory_builds"] == builds


def test_kernel_ids_overload_rejects_incompatible_kernels(queue: sycl.queue) -> None:
    """a kernel no listed device supports."""
    for state in sycl.bundle_state:
        with pytest.raises(sycl.exception) as info:
            sycl.get_kernel_bundle(state, queue.get_context(), kernel_ids=[NEVER[0]])
        assert info.value.code() is sycl.errc.invalid and "kb_never" in str(info.value)


def test_input_images_a_selector_keeps_are_the_bundles_images(queue: sycl.queue) -> None:
    """§4.11.7: in the input state the selector is given the images the bundle holds."""
    kept: list[sycl.device_image] = []

    def keep(img: sycl.device_image) -> bool:
        kept.append(img)
        return True

    kb = sycl.get_kernel_bundle(I, queue.get_context(), selector=keep)
    assert kept and list(kb) == kept


def test_selector_is_called_once_per_compatible_image(queue: sycl.queue) -> None:
    """KB-11: only application images; the result is what it keeps."""
    seen: list[sycl.device_image] = []

    def keep_add(img: sycl.device_image) -> bool:
        seen.append(img)
        assert img.has_kernel(ADD_MUL[0]) in (True, False)  # never raises
        img.has_kernel(ADD_MUL[0], queue.get_device())
        return bool(img.has_kernel(ADD_MUL[0]))

    kb = sycl.get_kernel_bundle(E, queue.get_context(), selector=keep_add)
    full = sycl.get_kernel_bundle(E, queue.get_context())
    assert len(seen) == len(full) == len(set(seen))
    assert _ids(kb) == {"kb_add", "kb_mul"}
    assert not kb.has_kernel(EXT[0])
    none = sycl.get_kernel_bundle(I, queue.get_context(), selector=lambda img: False)
    assert none.empty() and len(none) == 0


def test_input_and_object_bundles_of_a_context(queue: sycl.queue) -> None:
    """KB-23: a device with an online compiler/linker gives input/object bundles."""
    ctx = queue.get_context()
    for state in (I, O):
        kb = sycl.get_kernel_bundle(state, ctx, kernel_ids=[ADD_MUL[0]])
        assert kb.state is state and kb.has_kernel(ADD_MUL[0]) and kb.has_kernel(ADD_MUL[1])
        with pytest.raises(sycl.exception) as info:
            kb.get_kernel(ADD_MUL[0])
        assert info.value.code() is sycl.errc.invalid and "executable" in str(info.value)
    obj = sycl.compile(sycl.get_kernel_bundle(I, ctx, kernel_ids=[ADD_MUL[0]]))
    assert obj.state is O
    exe = sycl.link(obj)
    assert exe.state is E
    assert _run_add(queue, exe.get_kernel(ADD_MUL[0])).tolist() == [i + 5 for i in range(8)]


def test_input_state_needs_an_online_compiler(queue: sycl.queue) -> None:
    """injected fault: the device reports no compiler and no linker."""
    dev = queue.get_device()
    saved = dev._aspects
    dev._aspects = frozenset(a for a in sycl.aspect if dev.has(a)) - {
        sycl.aspect.online_compiler, sycl.aspect.online_linker
    }
    try:
        for state in (I, O):
            with pytest.raises(sycl.exception) as info:
                sycl.get_kernel_bundle(state, queue.get_context())
            assert info.value.code() is sycl.errc.invalid and "online_" in str(info.value)
            assert sycl.has_kernel_bundle(state, queue.get_context()) is False
            assert sycl.has_kernel_bundle(state, queue.get_context(), kernel_ids=[ADD_MUL[0]]) is False
        assert sycl.has_kernel_bundle(E, queue.get_context(), kernel_ids=[ADD_MUL[0]])
    finally:
        dev._aspects = saved


# --- has_kernel_bundle, is_compatible (§4.11.8, §4.11.9) -------------------------------------


@pytest.mark.parametrize("state", list(sycl.bundle_state))
def test_has_kernel_bundle(queue: sycl.queue, state: sycl.bundle_state) -> None:
    """True iff every kernel is compatible with some device."""
    ctx, dev = queue.get_context(), queue.get_device()
    assert sycl.has_kernel_bundle(state, ctx)
    assert sycl.has_kernel_bundle(state, ctx, [dev])
    assert sycl.has_kernel_bundle(state, ctx, [dev], [ADD_MUL[0], EXT[0]])
    assert sycl.has_kernel_bundle(state, ctx, kernel_ids=[ADD_MUL[0]])
    assert not sycl.has_kernel_bundle(state, ctx, [dev], [ADD_MUL[0], NEVER[0]])
    assert not sycl.has_kernel_bundle(state, ctx, kernel_ids=[HUGE_WG[0]])
    if sycl.has_kernel_bundle(state, ctx, [dev], [EXT[0]]):
        assert sycl.get_kernel_bundle(state, ctx, [dev], [EXT[0]]).has_kernel(EXT[0])


def test_is_compatible(device: sycl.device) -> None:
    """KB-32/33/35: aspects, required work-group sizes, AND over ids."""
    assert sycl.is_compatible([ADD_MUL[0], EXT[0]], device)
    assert sycl.is_compatible("kb_add", device)
    assert not sycl.is_compatible([NEVER[0]], device)
    assert not sycl.is_compatible([ADD_MUL[0], NEVER[0]], device)
    assert not sycl.is_compatible([HUGE_WG[0]], device)
    assert sycl.is_compatible([library.get_kernel_id("transpose_float32")], device)  # reqd 16x16 fits
    fp64 = library.get_kernel_id("fill_float64")
    assert sycl.is_compatible([fp64], device) == device.has(sycl.aspect.fp64)


def test_a_required_sub_group_size_decides_compatibility(queue: sycl.queue) -> None:
    """KB-34, OKF-06 (§5.7): a kernel with ``intel_reqd_sub_group_size(N)`` is compatible exactly
    when N is one of the device's sub_group_sizes; an incompatible one is left out of bundles
    and refused at launch; compile_sub_group_size reports N."""
    ctx, dev = queue.get_context(), queue.get_device()
    n = max(dev.get_info(sycl.info.device.sub_group_sizes))
    (fits,) = sycl.register_kernel_source(
        f"__kernel __attribute__((intel_reqd_sub_group_size({n}))) "
        f"void kb_sg_{n}(__global int *a) {{ a[0] = {n}; }}"
    )
    assert sycl.is_compatible([fits], dev) and not sycl.is_compatible([HUGE_SG[0]], dev)
    kb = sycl.get_kernel_bundle(E, ctx)
    assert kb.has_kernel(fits) and not kb.has_kernel(HUGE_SG[0])
    kds = sycl.info.kernel_device_specific
    assert kb.get_kernel(fits).get_info(kds.compile_sub_group_size, dev) == n
    assert kb.get_kernel(ADD_MUL[0]).get_info(kds.compile_sub_group_size, dev) == 0
    with pytest.raises(sycl.exception) as info:
        sycl.get_kernel_bundle(E, ctx, kernel_ids=HUGE_SG)
    assert info.value.code() is sycl.errc.invalid
    out = np.zeros(1, np.int32)
    with sycl.buffer(out) as buf:
        with pytest.raises(sycl.exception) as info:
            queue.submit(lambda h: h.single_task(HUGE_SG[0], sycl.accessor(buf, h)))
        assert info.value.code() is sycl.errc.kernel_not_supported
        assert "sub-group size 4099" in str(info.value)
        queue.submit(lambda h: h.single_task(fits, sycl.accessor(buf, h)))
    assert out[0] == n


def test_units_no_device_can_run_are_never_compiled() -> None:
    """§4.11.7: kernels compatible with none of the devices are not compiled. A unit whose only
    kernel needs a larger work-group, or a sub-group size the device lacks, is left out of every
    bundle of the whole application without a compile (here it would fail with errc.build; on
    NVIDIA, reqd_work_group_size beyond the device's limits can kill the compiler)."""
    found = child_json(
        """
        import json, sycl_ocl as sycl
        S = sycl.bundle_state
        body = "(__global int *a) { a[0] = this_does_not_compile; }"
        broken = sycl.register_kernel_source(
            "__attribute__((reqd_work_group_size(1048576, 1, 1))) __kernel void kb_wg_broken" + body)
        broken += sycl.register_kernel_source(
            "__attribute__((intel_reqd_sub_group_size(4099))) __kernel void kb_sg_broken" + body)
        (plain,) = sycl.register_kernel_source("__kernel void kb_plain(__global int *a) { a[0] = 1; }")
        out = []
        for dev in sycl.device.get_devices():
            ctx = sycl.context(dev)
            for state in (S.input, S.object, S.executable):
                if not sycl.has_kernel_bundle(state, ctx):
                    continue
                kb = sycl.get_kernel_bundle(state, ctx)
                out.append([kb.has_kernel(plain), [kb.has_kernel(k) for k in broken],
                            sum(1 for _ in kb)])
        print(json.dumps(out))
        """
    )
    assert found and all(row == [True, [False, False], 1] for row in found), found


@pytest.mark.parametrize("state", list(sycl.bundle_state))
def test_device_has_decides_compatibility_for_every_aspect(
    queue: sycl.queue, state: sycl.bundle_state
) -> None:
    """KB-21, KB-24, KB-32, OKF-02: a unit needing aspect X is compatible iff the device has X."""
    ctx, dev = queue.get_context(), queue.get_device()
    bundle = sycl.get_kernel_bundle(state, ctx)
    for asp, kid in PER_ASPECT.items():
        has = dev.has(asp)
        assert sycl.is_compatible([kid], dev) is has, asp
        assert sycl.has_kernel_bundle(state, ctx, [dev], [kid]) is has, asp
        assert bundle.has_kernel(kid) is has and bundle.has_kernel(kid, dev) is has, asp


def test_every_device_and_kernel_of_a_bundle_is_usable(device_pair: list[sycl.device]) -> None:
    """each device has a compatible image; each kernel runs on some device."""
    kb = sycl.get_kernel_bundle(E, sycl.context(device_pair))
    for dev in kb.get_devices():
        assert any(img.has_kernel(k, dev) for img in kb for k in kb.get_kernel_ids())
    for kid in kb.get_kernel_ids():
        assert any(sycl.is_compatible([kid], d) for d in kb.get_devices())


def test_built_in_kernels_are_compatible_with_their_device_only() -> None:
    """KB-30: a built-in kernel is compatible only with the device it belongs to."""
    pocl, grind = platform_devices("Portable"), platform_devices("Oclgrind")
    bik = pocl[0].get_info(sycl.info.device.built_in_kernel_ids) if pocl else []
    if not bik:
        pytest.skip("needs a device with built-in kernels (PoCL advertises some)")
    assert sycl.is_compatible(bik, pocl[0])
    for other in (pocl[1:] + grind)[:2]:
        assert not sycl.is_compatible(bik[:1], other)


# --- device images and kernels (§4.11.12) -------------------------------------------------


def test_iteration_over_device_images(queue: sycl.queue) -> None:
    """KB-08: multi-pass iteration; images answer has_kernel per device."""
    kb = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=[ADD_MUL[0], EXT[0]])
    first, second = list(kb), list(kb)
    assert first == second and len(first) == 2
    holders = [img for img in kb if img.has_kernel(ADD_MUL[0])]
    assert len(holders) == 1 and holders[0].has_kernel(ADD_MUL[1], queue.get_device())
    assert not holders[0].has_kernel(EXT[0])


def test_get_kernel_of_a_kernel_not_in_the_bundle_is_invalid(queue: sycl.queue) -> None:
    """Item 4: errc.invalid naming the kernel."""
    kb = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=[EXT[0]])
    with pytest.raises(sycl.exception) as info:
        kb.get_kernel(ADD_MUL[0])
    assert info.value.code() is sycl.errc.invalid and "kb_add" in str(info.value)
    assert kb.get_kernel("kb_ext") is kb.get_kernel(EXT[0])


def test_bundle_reference_semantics(queue: sycl.queue) -> None:
    """KB-09: a copy is the same bundle; hashable."""
    kb = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=[EXT[0]])
    alias = kb
    assert alias == kb and hash(alias) == hash(kb) and {kb: 1}[alias] == 1


def test_copies_of_bundles_images_and_ids_compare_equal(queue: sycl.queue) -> None:
    """KB-09, KB-10, KB-13: copy.copy / copy.deepcopy of a bundle, an image or a kernel id is
    equal to it (common reference semantics, §4.5.2)."""
    kb = sycl.get_kernel_bundle(E, queue.get_context(), kernel_ids=[EXT[0]])
    for obj in (kb, next(iter(kb)), EXT[0]):
        assert copy.copy(obj) == obj and copy.deepcopy(obj) == obj
        assert hash(copy.copy(obj)) == hash(obj)


# --- join (§4.11.10) -------------------------------------------------------------------------


def test_join_merges_images_without_duplicates(queue: sycl.queue) -> None:
    """KB-36: join(b1, b2) has both kernels; join([b, b]) keeps b's image count."""
    ctx = queue.get_context()
    b1 = sycl.get_kernel_bundle(E, ctx, kernel_ids=[ADD_MUL[0]])
    b2 = sycl.get_kernel_bundle(E, ctx, kernel_ids=[EXT[0]])
    joined = sycl.join([b1, b2])
    assert joined.has_kernel(ADD_MUL[0]) and joined.has_kernel(EXT[0])
    assert joined.get_context() == ctx and joined.get_devices() == b1.get_devices()
    assert len(sycl.join([b1, b1])) == len(b1)
    assert _run_add(queue, "kb_add", joined).tolist() == [i + 5 for i in range(8)]


def test_join_rejects_mixed_contexts_devices_and_states(device_pair: list[sycl.device]) -> None:
    """join needs one context, one device list and one state (§4.11.10)."""
    ctx = sycl.context(device_pair)
    other_ctx = sycl.context(device_pair)
    on_both = sycl.get_kernel_bundle(E, ctx, kernel_ids=[EXT[0]])
    on_first = sycl.get_kernel_bundle(E, ctx, [device_pair[0]], [EXT[0]])
    foreign = sycl.get_kernel_bundle(E, other_ctx, kernel_ids=[EXT[0]])
    inputs = sycl.get_kernel_bundle(I, ctx, kernel_ids=[EXT[0]])
    for bad in ([on_both, foreign], [on_both, on_first], [on_both, inputs]):
        with pytest.raises(sycl.exception) as info:
            sycl.join(bad)
        assert info.value.code() is sycl.errc.invalid
    with pytest.raises(sycl.exception) as info:
        sycl.join([on_both], I)  # join<input>(executable bundles)
    assert info.value.code() is sycl.errc.invalid


@pytest.mark.parametrize("state", [None, I, O, E])
def test_join_of_no_bundle_is_an_empty_bundle(state: sycl.bundle_state | None) -> None:
    """KB-39 (CTS sycl_join_zero_kernel_bundles): join<State>({}) is empty, in that state."""
    joined = sycl.join([], state) if state is not None else sycl.join([])
    assert joined.empty() and len(joined) == 0 and joined.get_kernel_ids() == []
    assert joined.state is (state or E)
    assert joined.get_context() == sycl.queue().get_context()
    assert joined.get_devices() == joined.get_context().get_devices()
