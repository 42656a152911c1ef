"""Category kernel_bundle (CTS tests/kernel_bundle): KB-03 .. KB-65."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl

ADD_ONE, SCALE = sycl.register_kernel_source(
    """
    __kernel void cts_add_one(__global int *data) { data[get_global_id(0)] += 1; }
    __kernel void cts_scale(__global int *data, int factor) { data[get_global_id(0)] *= factor; }
    """
)
# Two units where one calls a function only the other defines. They are not registered
# (a registered unit must build on its own); they enter bundles through interop.
CALLER = """
int cts_helper(int x);
__kernel void cts_use_helper(__global int *data) {
    data[get_global_id(0)] = cts_helper(data[get_global_id(0)]);
}
"""
DEFINER = "int cts_helper(int x) { return 3 * x + 1; }"
(SPEC_KERNEL,) = sycl.register_kernel_source(
    "__kernel void cts_spec(__global int *out) { out[0] = CTS_SPEC; }"
)
CTS_SPEC = sycl.specialization_id("CTS_SPEC", np.int32, 10)
OTHER_SPEC = sycl.specialization_id("CTS_OTHER_SPEC", np.int32, 5)
(FP64_KERNEL,) = sycl.register_kernel_source(
    """
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void cts_fp64(__global double *d) { d[0] = 2.0 * d[0]; }
    """,
    device_has=[sycl.aspect.fp64],
)
STATES = list(sycl.bundle_state)


def _run(
    q: sycl.queue, kernel: object, values: list[int], *args: object, bundle: object = None
) -> np.ndarray:
    data = np.array(values, dtype=np.int32)
    with sycl.buffer(data) as buf:

        def cgf(h: sycl.handler) -> None:
            if bundle is not None:
                h.use_kernel_bundle(bundle)
            acc = sycl.accessor(buf, h, sycl.read_write)
            h.parallel_for(sycl.range(len(values)), kernel, acc, *args)

        q.submit(cgf).wait_and_throw()
    return data


def _needs(device: sycl.device, state: sycl.bundle_state) -> None:
    if state is sycl.bundle_state.input and not device.has(sycl.aspect.online_compiler):
        pytest.skip("input bundles need the online_compiler aspect")
    if state is sycl.bundle_state.object and not device.has(sycl.aspect.online_linker):
        pytest.skip("object bundles need the online_linker aspect")


def test_KB_03_devices_of_bundle(queue: sycl.queue) -> None:
    """get_kernel_bundle(executable, ctx, [dev]).get_devices() is exactly [dev]."""
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), [queue.get_device()])
    assert kb.get_devices() == [queue.get_device()]
    assert kb.get_backend() is sycl.backend.opencl


def test_KB_04_has_kernel_matches_is_compatible(queue: sycl.queue) -> None:
    """For every id of the executable bundle: has_kernel(id, dev) == is_compatible([id], dev)."""
    dev = queue.get_device()
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context())
    for kid in sycl.get_kernel_ids():
        assert kb.has_kernel(kid, dev) == sycl.is_compatible([kid], dev)


def test_KB_06_distinct_ids(queue: sycl.queue) -> None:
    """The executable bundle of the context lists at least 4 distinct ids."""
    ids = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context()).get_kernel_ids()
    assert len(ids) >= 4 and len(set(ids)) == len(ids)


def test_KB_07_get_kernel(queue: sycl.queue) -> None:
    """get_kernel of a contained id returns a kernel; of another id raises errc.invalid."""
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), kernel_ids=[ADD_ONE])
    assert isinstance(kb.get_kernel(ADD_ONE), sycl.kernel)
    with pytest.raises(sycl.exception) as info:
        kb.get_kernel(SPEC_KERNEL)  # defined in another image
    assert info.value.code() is sycl.errc.invalid


def test_KB_08_images_iterate(queue: sycl.queue) -> None:
    """Iterating a bundle yields device images, repeatably."""
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), kernel_ids=[ADD_ONE])
    first, second = list(kb), list(kb)
    assert first == second and first
    assert any(img.has_kernel(ADD_ONE) for img in first)


def test_KB_11_selector_is_invoked(queue: sycl.queue) -> None:
    """The selector of get_kernel_bundle(ctx, selector) is called with device images."""
    seen: list[object] = []

    def keep(img: sycl.device_image) -> bool:
        seen.append(img)
        return img.has_kernel(ADD_ONE)

    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), selector=keep)
    assert seen and kb.has_kernel(ADD_ONE) and not kb.has_kernel(SPEC_KERNEL)


def test_KB_12_13_kernel_ids() -> None:
    """kernel_id names; get_kernel_id twice gives equal ids; different kernels differ."""
    assert ADD_ONE.get_name() == "cts_add_one"
    assert sycl.get_kernel_id("cts_add_one") == ADD_ONE
    assert hash(sycl.get_kernel_id("cts_add_one")) == hash(ADD_ONE)
    assert ADD_ONE != SCALE


def test_KB_30_builtin_kernels_are_compatible(device: sycl.device) -> None:
    """The device's own built-in kernel ids are compatible with it."""
    ids = device.get_info(sycl.info.device.built_in_kernel_ids)
    if not ids:
        pytest.skip("the device advertises no built-in kernels")
    assert sycl.is_compatible(ids, device)


def test_KB_32_optional_features(device: sycl.device) -> None:
    """A plain kernel is compatible; a device_has(fp64) kernel iff the device has fp64."""
    assert sycl.is_compatible([ADD_ONE], device)
    assert sycl.is_compatible([FP64_KERNEL], device) == device.has(sycl.aspect.fp64)


def test_KB_36_join_and_run(queue: sycl.queue) -> None:
    """Two executable bundles joined; use_kernel_bundle(joined) runs kernels of both."""
    ctx = queue.get_context()
    a = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=[ADD_ONE])
    b = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=[SCALE])
    joined = sycl.join([a, b])
    assert joined.has_kernel(ADD_ONE) and joined.has_kernel(SCALE)
    assert list(_run(queue, ADD_ONE, [1, 2], bundle=joined)) == [2, 3]
    assert list(_run(queue, SCALE, [1, 2], np.int32(3), bundle=joined)) == [3, 6]


@pytest.mark.parametrize("state", STATES, ids=[s.name for s in STATES])
def test_KB_42_state_bundles(queue: sycl.queue, state: sycl.bundle_state) -> None:
    """Bundles of every state hold the requested kernel and keep the context."""
    _needs(queue.get_device(), state)
    kb = sycl.get_kernel_bundle(state, queue.get_context(), kernel_ids=[ADD_ONE])
    assert kb.state is state and kb.has_kernel(ADD_ONE)
    assert kb.get_context() == queue.get_context()


def test_KB_47_compile_link_across_images(queue: sycl.queue) -> None:
    """compile two input images, link them: a kernel calls a function of the other image."""
    _needs(queue.get_device(), sycl.bundle_state.object)
    ctx = queue.get_context()
    caller, definer = (
        sycl.compile(sycl.make_kernel_bundle(cl.Program(sycl.get_native(ctx), src), ctx,
                                             sycl.bundle_state.input))
        for src in (CALLER, DEFINER)
    )
    assert caller.state is sycl.bundle_state.object
    linked = sycl.link([caller, definer])
    assert linked.state is sycl.bundle_state.executable
    use_helper = next(k for k in linked.get_kernel_ids() if k.get_name() == "cts_use_helper")
    assert list(_run(queue, linked.get_kernel(use_helper), [1, 2, 3])) == [4, 7, 10]


def test_KB_52_build_equals_link_of_compile(queue: sycl.queue) -> None:
    """build(x) and link(compile(x)) have the same kernels, context and devices."""
    _needs(queue.get_device(), sycl.bundle_state.object)
    x = sycl.get_kernel_bundle(sycl.bundle_state.input, queue.get_context(), kernel_ids=[ADD_ONE, SCALE])
    built, linked = sycl.build(x), sycl.link(sycl.compile(x))
    assert set(built.get_kernel_ids()) == set(linked.get_kernel_ids())
    assert built.get_context() == linked.get_context() and built.get_devices() == linked.get_devices()


def test_KB_56_use_kernel_bundle_with_spec_constant(queue: sycl.queue) -> None:
    """Set a spec constant on an input bundle, build, use it: the kernel reads the new value."""
    _needs(queue.get_device(), sycl.bundle_state.input)
    inp = sycl.get_kernel_bundle(sycl.bundle_state.input, queue.get_context(), kernel_ids=[SPEC_KERNEL])
    inp.set_specialization_constant(CTS_SPEC, 20)
    exe = sycl.build(inp)
    out = np.zeros(1, np.int32)
    with sycl.buffer(out) as buf:
        queue.submit(lambda h: (h.use_kernel_bundle(exe),
                                h.single_task(SPEC_KERNEL, sycl.accessor(buf, h, sycl.write_only)))).wait()
    assert out[0] == 20


def test_KB_61_62_spec_constants_on_bundles(queue: sycl.queue) -> None:
    """has/get of spec constants survive compile, build and link; unset ones keep defaults."""
    _needs(queue.get_device(), sycl.bundle_state.object)
    inp = sycl.get_kernel_bundle(sycl.bundle_state.input, queue.get_context(), kernel_ids=[SPEC_KERNEL])
    assert inp.get_specialization_constant(CTS_SPEC) == 10
    inp.set_specialization_constant(CTS_SPEC, 7)
    assert isinstance(inp.native_specialization_constant(), bool)
    assert inp.has_specialization_constant(CTS_SPEC) and not inp.has_specialization_constant(OTHER_SPEC)
    for kb in (inp, sycl.compile(inp), sycl.build(inp), sycl.link(sycl.compile(inp))):
        assert kb.get_specialization_constant(CTS_SPEC) == 7


def test_KB_64_set_spec_constant_only_on_input(queue: sycl.queue) -> None:
    """set_specialization_constant on an executable bundle raises."""
    exe = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), kernel_ids=[SPEC_KERNEL])
    with pytest.raises(sycl.exception):
        exe.set_specialization_constant(CTS_SPEC, 3)


def test_KB_65_duplicate_devices_removed(queue: sycl.queue) -> None:
    """get_kernel_bundle(ctx, [dev, dev]) has each device once."""
    dev = queue.get_device()
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), [dev, dev], [ADD_ONE])
    assert kb.get_devices() == [dev]


def test_KB_66_errors(queue: sycl.queue) -> None:
    """Empty device list, device outside the context, build failures raise the spec's errc."""
    ctx = queue.get_context()
    with pytest.raises(sycl.exception) as info:
        sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, [])
    assert info.value.code() is sycl.errc.invalid
    (broken,) = sycl.register_kernel_source("__kernel void cts_broken(void) { this is not C; }")
    with pytest.raises(sycl.exception) as info:
        sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=[broken])
    assert info.value.code() is sycl.errc.build
