"""Compile two units separately, link them, and set a specialization constant before compiling.

Teaches the kernel-bundle states (SYCL 2020 §4.11): ``get_kernel_bundle`` in
``bundle_state.input`` (source, not compiled), ``sycl.compile`` to ``object`` (OpenCL's
``clCompileProgram``), ``sycl.link`` to ``executable`` (``clLinkProgram``), and launching
through the linked bundle with ``handler.use_kernel_bundle``. One unit calls ``polynomial``,
which only the other unit defines: linking resolves the call, as with ``SYCL_EXTERNAL``
functions. A specialization constant (``GAIN``) is an identifier in OpenCL C; its value is
fixed when the unit is compiled (sycl_ocl passes it as ``-D GAIN=...``).

The device must have an online compiler and linker, so the queue is chosen with
``aspect_selector``.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

GAIN = sycl.specialization_id("GAIN", np.float32, 1.0)

# The unit with the helper function (it also has a kernel of its own).
HELPERS = sycl.register_kernel_source("""
float polynomial(float x) { return (0.5f * x + 2.0f) * x - 1.0f; }
__kernel void evaluate_polynomial(__global float *x) {
    x[get_global_id(0)] = polynomial(x[get_global_id(0)]);
}
""")

# The unit that calls it: polynomial is only declared here.
APPLY = sycl.register_kernel_source("""
float polynomial(float x);
__kernel void apply_gain(__global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    y[i] = GAIN * polynomial(x[i]);
}
""")


def linked_bundle(q: sycl.queue, gain: float) -> sycl.kernel_bundle:
    """Both units compiled on their own (``GAIN`` set first), then linked into one program."""
    ctx, devs = q.get_context(), [q.get_device()]
    apply_input = sycl.get_kernel_bundle(sycl.bundle_state.input, ctx, devs, kernel_ids=APPLY)
    apply_input.set_specialization_constant(GAIN, gain)
    apply_object = sycl.compile(apply_input)
    helpers_object = sycl.compile(
        sycl.get_kernel_bundle(sycl.bundle_state.input, ctx, devs, kernel_ids=HELPERS)
    )
    return sycl.link([apply_object, helpers_object])


def main() -> None:
    q = sycl.queue(sycl.aspect_selector(sycl.aspect.online_compiler, sycl.aspect.online_linker))
    exe = linked_bundle(q, 2.5)
    assert exe.state is sycl.bundle_state.executable
    assert exe.get_specialization_constant(GAIN) == np.float32(2.5)
    print(f"linked {[k.get_name() for k in exe.get_kernel_ids()]}; GAIN = "
          f"{exe.get_specialization_constant(GAIN)} (native: {exe.native_specialization_constant()})")

    x = np.linspace(-2, 2, 64, dtype=np.float32)
    y = np.empty_like(x)
    with sycl.buffer(x) as bx, sycl.buffer(y) as by:
        def cgf(h: sycl.handler) -> None:
            h.use_kernel_bundle(exe)  # the kernel comes from the linked program
            h.parallel_for(sycl.range(x.size), "apply_gain",
                           sycl.accessor(bx, h, sycl.read_only), sycl.accessor(by, h, sycl.write_only))

        q.submit(cgf)
    np.testing.assert_allclose(y, 2.5 * ((0.5 * x + 2) * x - 1), rtol=1e-5, atol=1e-6)
    print("apply_gain = GAIN * polynomial(x), polynomial linked from the other unit: ok")


if __name__ == "__main__":
    main()
