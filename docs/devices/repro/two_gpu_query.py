"""Raw PyOpenCL: per-device queries of a program built for one device of a two-device context.

Each query runs in a child process, so a driver crash is reported, not fatal. On NVIDIA 580
with two H100s, clGetKernelWorkGroupInfo for the device the program was not built for dies
with SIGSEGV; see docs/devices/README.md for the output.
Usage: python two_gpu_query.py [platform-substring]
"""
import subprocess
import sys

import pyopencl as cl

SRC = "__kernel void f(__global int *a) { a[get_global_id(0)] = 1; }"
QUERIES = {
    "build status": "prg.get_build_info(other, cl.program_build_info.STATUS)",
    "build log": "prg.get_build_info(other, cl.program_build_info.LOG)",
    "binary type": "prg.get_build_info(other, cl.program_build_info.BINARY_TYPE)",
    "program binaries (sizes)": "[len(b) for b in prg.get_info(cl.program_info.BINARIES)]",
    "kernel arg info": "knl.get_arg_info(0, cl.kernel_arg_info.TYPE_NAME)",
    "kernel WORK_GROUP_SIZE": "knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, other)",
    "kernel COMPILE_WORK_GROUP_SIZE":
        "knl.get_work_group_info(cl.kernel_work_group_info.COMPILE_WORK_GROUP_SIZE, other)",
    "kernel on the built device": "knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, built)",
}
CHILD = """
import pyopencl as cl
plat = [p for p in cl.get_platforms() if {name!r} in p.name][0]
built, other = plat.get_devices()[:2]
ctx = cl.Context([built, other])
prg = cl.Program(ctx, {src!r}).build(devices=[built], cache_dir=False)
knl = cl.Kernel(prg, "f")
print(repr({query}))
"""


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
    plat = [p for p in cl.get_platforms() if name in p.name][0]
    devices = plat.get_devices()
    print(f"{plat.name} {plat.version}: {len(devices)} devices: {[d.name for d in devices]}")
    if len(devices) < 2:
        print("needs two devices of one platform")
        return
    for label, query in QUERIES.items():
        code = CHILD.format(name=name, src=SRC, query=query)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        outcome = done.stdout.strip() if done.returncode == 0 else (
            f"exit {done.returncode}" + (f" ({done.stderr.strip().splitlines()[-1]})" if done.stderr.strip() else ""))
        print(f"{label}: {outcome}")


if __name__ == "__main__":
    main()
