"""A pipeline of host tasks and kernels: load on the host, compute on the device, save on the host.

Teaches: ``handler.host_task`` with accessors (inside the task, ``numpy.asarray(acc)`` is a
view of the buffer's data, current on the host), buffers without host memory
(``sycl.buffer(sycl.range(n), dtype)``), and a pipeline submitted without a single wait:
each frame's load -> compute -> save chain is ordered by its buffers, across two queues
(one for host I/O, one for the device), and different frames overlap. ``queue.wait()`` at
the end is the only synchronization.
"""

from __future__ import annotations

import threading

import numpy as np

import sycl_ocl as sycl

FRAMES = 6
N = 4096

sycl.register_kernel_source("""
__kernel void brighten(__global const float *src, __global float *dst, float gain) {
    size_t i = get_global_id(0);
    dst[i] = gain * sqrt(src[i]);
}
""")


def frame_data(index: int) -> np.ndarray:
    """What the "camera" delivers for frame ``index``."""
    return np.random.default_rng(index).random(N, dtype=np.float32)


def submit_frame(
    io: sycl.queue, compute: sycl.queue, index: int, saved: dict[int, float], lock: threading.Lock
) -> list[sycl.buffer]:
    """Submit load -> brighten -> save for one frame; returns at once, with the frame's buffers."""
    raw = sycl.buffer(sycl.range(N), np.float32)
    out = sycl.buffer(sycl.range(N), np.float32)

    def load(h: sycl.handler) -> None:
        acc = sycl.accessor(raw, h, sycl.write_only, prop_list=[sycl.property.no_init()])

        def read_camera() -> None:
            np.copyto(np.asarray(acc), frame_data(index))

        h.host_task(read_camera)

    def brighten(h: sycl.handler) -> None:
        h.parallel_for(sycl.range(N), "brighten", sycl.accessor(raw, h, sycl.read_only),
                       sycl.accessor(out, h, sycl.write_only), 2.0)

    def save(h: sycl.handler) -> None:
        acc = sycl.accessor(out, h, sycl.read_only)

        def store() -> None:
            total = float(np.asarray(acc).sum(dtype=np.float64))
            with lock:  # host tasks run on threads of their own
                saved[index] = total

        h.host_task(store)

    io.submit(load)
    compute.submit(brighten)  # waits for this frame's load, through `raw`
    io.submit(save)           # waits for this frame's kernel, through `out`
    # Dropping a buffer waits for its work: the caller keeps them until the end.
    return [raw, out]


def main() -> None:
    dev = sycl.device()
    io, compute = sycl.queue(dev), sycl.queue(dev)
    saved: dict[int, float] = {}
    lock = threading.Lock()
    in_flight = [submit_frame(io, compute, index, saved, lock) for index in range(FRAMES)]
    io.wait()  # the saves are the last commands of every frame
    del in_flight
    for index in range(FRAMES):
        expected = float((2 * np.sqrt(frame_data(index))).sum(dtype=np.float64))
        assert abs(saved[index] - expected) <= 1e-4 * expected, (index, saved[index], expected)
    print(f"{FRAMES} frames loaded, processed on {dev.get_info(sycl.info.device.name)} and saved: ok")


if __name__ == "__main__":
    main()
