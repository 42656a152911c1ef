"""Two devices sharing one buffer: the runtime moves the data and orders the commands.

Teaches: one queue per device; sub-buffers (``sycl.buffer(parent, sycl.id(...),
sycl.range(...))``) so each device works on its own half at the same time; a last kernel on
one device that reads what both wrote, with no wait in between (the scheduler orders the
commands by their accessors); and ``buffer.transfer_counters()`` to see what was copied.

Devices: two of one platform if there are (PoCL gives two CPU devices with
``POCL_DEVICES="pthread pthread"``; default queues of one platform share one context, so
the devices share one ``cl_mem`` and nothing is copied between them); else two of different
platforms (data goes through the host); with a single device, two queues on it.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

sycl.register_kernel_source("""
__kernel void affine(__global float *x, float scale, float shift) {
    size_t i = get_global_id(0);
    x[i] = scale * x[i] + shift;
}
__kernel void pairwise_sum(__global float *x, __global const float *y) {
    size_t i = get_global_id(0);
    x[i] += y[i];
}
""")


def two_devices() -> tuple[sycl.device, sycl.device]:
    """Two devices of one platform, else of any two platforms, else one device twice."""
    devices = sycl.device.get_devices()
    for first in devices:
        for second in devices:
            if first != second and first.get_platform() == second.get_platform():
                return first, second
    return devices[0], devices[-1]


def name(dev: sycl.device) -> str:
    return f"{dev.get_platform().get_info(sycl.info.platform.name)} / {dev.get_info(sycl.info.device.name)}"


def main() -> None:
    dev_a, dev_b = two_devices()
    qa, qb = sycl.queue(dev_a), sycl.queue(dev_b)
    alone = " (the only device: two queues on it)" if dev_a == dev_b else ""
    print(f"device A: {name(dev_a)}\ndevice B: {name(dev_b)}{alone}")
    n = 1 << 16  # each half's byte offset meets every device's sub-buffer alignment
    half = n // 2
    data = np.arange(n, dtype=np.float32)
    other = np.ones(n, dtype=np.float32)
    # Sub-buffers are handles of the same memory object: the write-back into `data` happens
    # when the last handle goes, so they get `with` blocks of their own.
    with (
        sycl.buffer(data) as whole, sycl.buffer(other) as ones,
        sycl.buffer(whole, sycl.id(0), sycl.range(half)) as low,
        sycl.buffer(whole, sycl.id(half), sycl.range(half)) as high,
    ):
        # A and B each transform one half; disjoint sub-buffers let them run at the same time.
        qa.submit(lambda h: h.parallel_for(sycl.range(half), "affine", sycl.accessor(low, h), 2.0, 0.0))
        qb.submit(lambda h: h.parallel_for(sycl.range(half), "affine", sycl.accessor(high, h), -1.0, 10.0))
        # B then reads the whole buffer, A's half included: it waits for both commands.
        qb.submit(lambda h: h.parallel_for(
            sycl.range(n), "pairwise_sum", sycl.accessor(whole, h), sycl.accessor(ones, h, sycl.read_only),
        ))
    counters = whole.transfer_counters()
    print(f"moved: host->device {counters.h2d_bytes} bytes in {counters.h2d_copies} copies, "
          f"device->host {counters.d2h_bytes} bytes ({counters.staged_bytes} of them between contexts)")
    expected = np.arange(n, dtype=np.float32)
    expected[:half] = 2 * expected[:half] + 1
    expected[half:] = -expected[half:] + 10 + 1
    np.testing.assert_array_equal(data, expected)
    print("both halves and the sum: ok")


if __name__ == "__main__":
    main()
