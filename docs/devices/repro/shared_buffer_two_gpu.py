"""Raw PyOpenCL: how a driver places a cl_mem shared by two devices of one context.

A compute-bound kernel over N floats, each GPU working on one half, timed end to end (host
array in, kernel, host array out) in five ways:
  one device                      one context of one GPU, one cl_mem (the baseline)
  one context, sub-buffers        one cl_mem, a sub-buffer per half, a queue per GPU
  ... + migrate                   the same, each sub-buffer migrated to its GPU first
                                  (clEnqueueMigrateMemObjects)
  one context, a cl_mem per GPU   two cl_mems in one context, one per half
  two contexts                    a context, queue and cl_mem per GPU
Usage: python shared_buffer_two_gpu.py [platform-substring] [floats] [iterations]
"""
import sys
import time

import numpy as np
import pyopencl as cl

SRC = """__kernel void compute(__global float *x, uint iterations)
{ size_t i = get_global_id(0); float v = x[i];
  for (uint k = 0; k < iterations; ++k) v = fma(v, 0.999f, 0.001f); x[i] = v; }"""
MF = cl.mem_flags
PROFILE = cl.command_queue_properties.PROFILING_ENABLE


def kernel_for(ctx: cl.Context) -> cl.Kernel:
    knl = cl.Program(ctx, SRC).build().compute
    knl.set_scalar_arg_dtypes([None, np.uint32])
    return knl


def run(jobs, host: np.ndarray, iterations: int, migrate: bool = False) -> float:
    """jobs: (queue, kernel, cl_mem, offset, count) per half; returns the ms end to end, the ms
    to enqueue every GPU's copy-in and kernel, and each kernel's (start, end) in ns."""
    start = time.perf_counter()
    runs = []
    for q, knl, mem, offset, count in jobs:  # every GPU's work first: a read-back may block
        write = cl.enqueue_copy(q, mem, host[offset:offset + count], is_blocking=False)
        if migrate:
            write = cl.enqueue_migrate_mem_objects(q, [mem], wait_for=[write])
        runs.append(knl(q, (count,), None, mem, np.uint32(iterations), wait_for=[write]))
        q.flush()
    kernels = time.perf_counter()
    for (q, _, mem, offset, count), run_ in zip(jobs, runs):
        cl.enqueue_copy(q, host[offset:offset + count], mem, wait_for=[run_])
    done = time.perf_counter()
    spans = [(e.profile.start, e.profile.end) for e in runs]
    return (done - start) * 1e3, (kernels - start) * 1e3, spans


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 25
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 40_000
    devs = [p for p in cl.get_platforms() if name in p.name][0].get_devices()[:2]
    host, half = np.ones(n, np.float32), n // 2
    one = cl.Context(devs[:1])
    k1 = kernel_for(one)
    shared = cl.Context(devs)
    ks = kernel_for(shared)
    qs = [cl.CommandQueue(shared, d, properties=PROFILE) for d in devs]
    parent = cl.Buffer(shared, MF.READ_WRITE, 4 * n)
    subs = [parent.get_sub_region(4 * k * half, 4 * half) for k in range(2)]
    separate = [cl.Buffer(shared, MF.READ_WRITE, 4 * half) for _ in range(2)]
    contexts = [cl.Context([d]) for d in devs]
    per = [(cl.CommandQueue(c, properties=PROFILE), kernel_for(c), cl.Buffer(c, MF.READ_WRITE, 4 * half)) for c in contexts]
    ways = {
        "one device": ([(cl.CommandQueue(one, properties=PROFILE), k1, cl.Buffer(one, MF.READ_WRITE, 4 * n), 0, n)], False),
        "one context, sub-buffers": ([(qs[k], ks, subs[k], k * half, half) for k in range(2)], False),
        "one context, sub-buffers + migrate": ([(qs[k], ks, subs[k], k * half, half) for k in range(2)], True),
        "one context, a cl_mem per GPU": ([(qs[k], ks, separate[k], k * half, half) for k in range(2)], False),
        "two contexts": ([(q, k, m, i * half, half) for i, (q, k, m) in enumerate(per)], False),
    }
    print(f"{devs[0].platform.name}, driver {devs[0].driver_version}: {n} floats, {iterations} iterations")
    for label, (jobs, migrate) in ways.items():
        run(jobs, host, iterations, migrate)  # warm-up
        results = sorted((run(jobs, host, iterations, migrate) for _ in range(5)), key=lambda r: r[0])
        total, enqueue, spans = results[2]
        first = min(begin for begin, _ in spans)
        kernels = ", ".join(f"{(begin - first) / 1e6:.1f}-{(end - first) / 1e6:.1f}" for begin, end in spans)
        print(f"{label:<36} median {total:7.1f} ms (enqueue {enqueue:6.1f}); kernels ran {kernels} ms")


if __name__ == "__main__":
    main()
