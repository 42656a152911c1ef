"""Raw PyOpenCL: a coarse-grain SVM pointer as a kernel argument in a context of two GPUs.

Tries the launch on each device's queue, with the program built for every device of the
context and for one device only. Usage: python svm_two_gpu.py [platform-substring]
"""
import sys

import numpy as np
import pyopencl as cl

SRC = "__kernel void add(__global int *a, int k) { a[get_global_id(0)] += k; }"


def attempt(ctx: cl.Context, devices: list, built_for: list, run_on: cl.Device) -> str:
    prg = cl.Program(ctx, SRC).build(devices=built_for, cache_dir=False)
    knl = prg.add
    knl.set_scalar_arg_dtypes([None, np.int32])
    q = cl.CommandQueue(ctx, run_on)
    svm = cl.SVM(cl.csvm_empty(ctx, 64, np.int32))
    try:
        cl.enqueue_svm_memfill(q, svm, np.int32(1))
        knl(q, (64,), None, svm, 2)
        out = np.empty(64, np.int32)
        cl.enqueue_copy(q, out, svm)
        return f"ok, a[0] = {out[0]}"
    except cl.Error as error:
        return f"failed: {error}"


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
    plat = [p for p in cl.get_platforms() if name in p.name][0]
    devices = plat.get_devices()[:2]
    if len(devices) < 2:
        print("needs two devices of one platform")
        return
    print(f"{plat.name} {plat.version}, driver {devices[0].driver_version}")
    pair = cl.Context(devices)
    for label, built_for in (("built for both", devices), ("built for device 0", devices[:1])):
        for k, dev in enumerate(devices):
            if dev in built_for:
                print(f"two-device context, {label}, run on device {k}: {attempt(pair, devices, built_for, dev)}")
    alone = cl.Context(devices[:1])
    print(f"one-device context: {attempt(alone, devices[:1], devices[:1], devices[0])}")


if __name__ == "__main__":
    main()
