"""A Jacobi solver for a 1-D Poisson problem, recorded once as a command graph and replayed.

Teaches: recording a queue's submissions into a ``command_graph``
(``sycl.ext.oneapi.experimental``, the oneAPI ``sycl_ext_oneapi_graph`` extension) instead of
running them; ``finalize`` (the kernels' arguments, the buffers' memory and the edges between
the commands resolved once, into a native command buffer where the device has one); replaying
with ``q.ext_oneapi_graph(exe)``, one command of the queue however many kernels the graph
holds; and mixing replays with eager work on the same buffers: a host accessor between replays
reads the current residual, and the buffers are written back when they are destroyed.

The problem: ``-u'' = f`` on ``N`` interior points with ``u = 0`` at both ends; one Jacobi step
is ``u_new[i] = (u[i-1] + u[i+1] + h^2 f[i]) / 2``. A recorded graph does ``SWEEPS`` steps
(ping-ponging between two buffers) and computes the residual, so each replay is one pass.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

exp = sycl.ext.oneapi.experimental

N = 32  # interior points
SWEEPS = 50  # Jacobi steps per replay (an even number: the result ends in `u`)
PASSES = 40  # replays

sycl.register_kernel_source("""
__kernel void jacobi(__global const float *u, __global float *u_new, __global const float *f,
                     float h2, int n) {
    int i = get_global_id(0);
    float left = i > 0 ? u[i - 1] : 0.0f, right = i < n - 1 ? u[i + 1] : 0.0f;
    u_new[i] = 0.5f * (left + right + h2 * f[i]);
}
__kernel void residual(__global const float *u, __global const float *f, __global float *r,
                       float inv_h2, int n) {
    int i = get_global_id(0);
    float left = i > 0 ? u[i - 1] : 0.0f, right = i < n - 1 ? u[i + 1] : 0.0f;
    r[i] = f[i] - inv_h2 * (2.0f * u[i] - left - right);
}
""")


def jacobi_numpy(f: np.ndarray, h2: float, steps: int) -> np.ndarray:
    """The same iteration in float32 numpy (the reference)."""
    u = np.zeros_like(f)
    for _ in range(steps):
        padded = np.pad(u, 1)
        u = (np.float32(0.5) * (padded[:-2] + padded[2:] + np.float32(h2) * f)).astype(np.float32)
    return u


def record_pass(q: sycl.queue, u: sycl.buffer, v: sycl.buffer, f: sycl.buffer, r: sycl.buffer,
                h2: float) -> exp.command_graph:
    """One pass (``SWEEPS`` Jacobi steps and the residual), recorded on ``q`` and finalized."""
    graph = exp.command_graph(q.get_context(), q.get_device())
    graph.begin_recording(q)
    for step in range(SWEEPS):
        src, dst = (u, v) if step % 2 == 0 else (v, u)
        q.submit(lambda h, src=src, dst=dst: h.parallel_for(
            N, "jacobi", sycl.accessor(src, h, sycl.read_only), sycl.accessor(dst, h, sycl.write_only),
            sycl.accessor(f, h, sycl.read_only), h2, N))
    q.submit(lambda h: h.parallel_for(
        N, "residual", sycl.accessor(u, h, sycl.read_only), sycl.accessor(f, h, sycl.read_only),
        sycl.accessor(r, h, sycl.write_only), 1.0 / h2, N))
    graph.end_recording()  # nothing ran: the graph holds SWEEPS + 1 kernels
    print(f"recorded {len(graph.get_nodes())} kernels; edges come from the accessors")
    return graph.finalize()


def main() -> None:
    q = sycl.queue()
    h2 = (1.0 / (N + 1)) ** 2
    x = np.linspace(0, 1, N + 2, dtype=np.float32)[1:-1]
    f_host = (np.pi ** 2 * np.sin(np.pi * x)).astype(np.float32)  # solution: u = sin(pi x)
    u_host, r_host = np.zeros(N, np.float32), np.zeros(N, np.float32)
    with sycl.buffer(u_host) as u, sycl.buffer(np.zeros(N, np.float32)) as v, \
            sycl.buffer(f_host) as f, sycl.buffer(r_host) as r:
        exe = record_pass(q, u, v, f, r, h2)
        for done in range(1, PASSES + 1):
            q.ext_oneapi_graph(exe)  # SWEEPS + 1 kernels, one command of the queue
            if done % 10 == 0:
                with sycl.host_accessor(r, sycl.read_only) as res:  # waits for that replay only
                    print(f"after {done * SWEEPS:5d} steps: max |residual| = {np.abs(res).max():.4f}")
    # The buffers are destroyed: their work is done and u_host, r_host written back.
    expected = jacobi_numpy(f_host, h2, PASSES * SWEEPS)
    np.testing.assert_allclose(u_host, expected, rtol=1e-4, atol=1e-5)
    print(f"{PASSES} replays on {q.get_device().get_info(sycl.info.device.name)}: "
          f"u matches numpy (max error {np.abs(u_host - expected).max():.2e}); "
          f"distance to sin(pi x): {np.abs(u_host - np.sin(np.pi * x)).max():.3f}")


if __name__ == "__main__":
    main()
