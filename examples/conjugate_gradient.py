"""Conjugate gradients on the 1-D Poisson matrix, its two dot products as reductions
(SYCL 2020 §4.9.2; docs/reductions.md): once over buffers, once over USM memory.

Teaches: reductions in an iterative solver, where each iteration reads its dot products back
(a host accessor on a one-element buffer; a ``memcpy`` from USM), ``initialize_to_identity``
so each iteration's variable needs no reset, and the same kernels taking accessors or USM
pointers. Solves ``A x = b`` with ``A = tridiag(-1, 2, -1)`` and checks the residual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import sycl_ocl as sycl

N = 256
TOLERANCE = 1e-8

sycl.register_kernel_source("""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* q = A p for A = tridiag(-1, 2, -1); rho = p.q */
__kernel void cg_apply(SYCL_REDUCER(double, rho), __global double *q, __global const double *p, uint n) {
    size_t i = get_global_id(0);
    double left = i > 0 ? p[i - 1] : 0.0, right = i + 1 < n ? p[i + 1] : 0.0;
    q[i] = 2.0 * p[i] - left - right;
    SYCL_COMBINE(rho, p[i] * q[i]);
}
/* x += alpha p; r -= alpha q; rr = r.r */
__kernel void cg_update(SYCL_REDUCER(double, rr), __global double *x, __global double *r,
                        __global const double *p, __global const double *q, double alpha) {
    size_t i = get_global_id(0);
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
    SYCL_COMBINE(rr, r[i] * r[i]);
}
/* p = r + beta p */
__kernel void cg_direction(__global double *p, __global const double *r, double beta) {
    size_t i = get_global_id(0);
    p[i] = r[i] + beta * p[i];
}
""", device_has=[sycl.aspect.fp64])

# One iteration's three launches, given how to pass the vectors and the two reductions.
Vectors = Callable[[sycl.handler], dict[str, Any]]
Reduction = Callable[[sycl.handler, str], sycl.reduction]


def iterate(q: sycl.queue, vec: Vectors, red: Reduction, read: Callable[[str], float], rr: float) -> float:
    """One CG iteration; returns the new r.r."""
    def apply(h: sycl.handler) -> None:
        v = vec(h)
        h.parallel_for(N, red(h, "rho"), "cg_apply", v["q"], v["p"], N)

    def update(h: sycl.handler) -> None:
        v = vec(h)
        h.parallel_for(N, red(h, "rr"), "cg_update", v["x"], v["r"], v["p"], v["q"], alpha)

    def direction(h: sycl.handler) -> None:
        v = vec(h)
        h.parallel_for(N, "cg_direction", v["p"], v["r"], new_rr / rr)

    q.submit(apply)
    alpha = rr / read("rho")
    q.submit(update)
    new_rr = read("rr")
    q.submit(direction)
    return new_rr


def solve(q: sycl.queue, iteration: Callable[[float], float], b: np.ndarray) -> int:
    """Iterate until the residual is small; returns the iterations taken."""
    rr = float(b @ b)
    for step in range(1, 2 * N):
        rr = iteration(rr)
        if rr < TOLERANCE**2 * float(b @ b):
            return step
    raise RuntimeError("CG did not converge")


def with_buffers(q: sycl.queue, b: np.ndarray) -> np.ndarray:
    x = np.zeros(N)
    init = [sycl.property.reduction.initialize_to_identity()]
    with sycl.buffer(x) as bx, sycl.buffer(b.copy()) as br, sycl.buffer(b.copy()) as bp, \
            sycl.buffer(sycl.range(N), np.float64) as bq:
        scalars = {"rho": sycl.buffer(np.zeros(1)), "rr": sycl.buffer(np.zeros(1))}
        buffers = {"x": bx, "r": br, "p": bp, "q": bq}
        steps = solve(q, lambda rr: iterate(
            q, lambda h: {k: sycl.accessor(buf, h) for k, buf in buffers.items()},
            lambda h, name: sycl.reduction(scalars[name], h, sycl.plus(), prop_list=init),
            lambda name: float(sycl.host_accessor(scalars[name], sycl.read_only)[0]), rr), b)
    print(f"buffers: converged in {steps} iterations")
    return x


def with_usm(q: sycl.queue, b: np.ndarray) -> np.ndarray | None:
    if not q.get_device().has(sycl.aspect.usm_device_allocations):
        print("the device has no USM device allocations: skipping the USM solve")
        return None
    ptrs = {k: sycl.malloc_device(count=N, dtype=np.float64, q=q) for k in "xrpq"}
    scalars = {k: sycl.malloc_device(count=1, dtype=np.float64, q=q) for k in ("rho", "rr")}
    init = [sycl.property.reduction.initialize_to_identity()]

    def read(name: str) -> float:
        value = np.zeros(1)
        q.memcpy(value, scalars[name], 8).wait()
        return float(value[0])

    try:
        q.memset(ptrs["x"], 0, 8 * N)
        for k in "rp":
            q.memcpy(ptrs[k], b, b.nbytes)
        q.wait()
        steps = solve(q, lambda rr: iterate(
            q, lambda h: ptrs, lambda h, name: sycl.reduction(scalars[name], sycl.plus(), prop_list=init),
            read, rr), b)
        x = np.zeros(N)
        q.memcpy(x, ptrs["x"], x.nbytes).wait()
    finally:
        for p in (*ptrs.values(), *scalars.values()):
            sycl.free(p, q)
    print(f"USM:     converged in {steps} iterations")
    return x


def main() -> None:
    q = sycl.queue(sycl.aspect_selector(sycl.aspect.fp64))
    b = np.random.default_rng(0).random(N)
    a = 2 * np.eye(N) - np.eye(N, k=1) - np.eye(N, k=-1)
    for x in (with_buffers(q, b), with_usm(q, b)):
        if x is not None:
            residual = np.linalg.norm(a @ x - b) / np.linalg.norm(b)
            print(f"  relative residual |Ax - b| / |b| = {residual:.2e}")
            assert residual < 1e-6


if __name__ == "__main__":
    main()
