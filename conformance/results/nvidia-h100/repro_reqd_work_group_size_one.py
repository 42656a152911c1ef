"""Driver defect (suspected; tools/bisect_build_crash.py confirms which source): NVIDIA's OpenCL
compiler kills the process with SIGFPE in clBuildProgram on a kernel with
``__attribute__((reqd_work_group_size(1, 1, 1)))`` written before ``__kernel``.

OpenCL 3.0 §5.8.2: a program that cannot be built makes clBuildProgram return
CL_BUILD_PROGRAM_FAILURE; a compiler never ends the process. The same kernel builds on PoCL,
Oclgrind and Intel's CPU runtime. Raw PyOpenCL, no sycl_ocl: the build runs in a child process,
so this script can say how it ended. Exit status 1 while the defect is there, 0 once it builds
(or fails with an error).

    python repro_reqd_work_group_size_one.py [PLATFORM_SUBSTRING]   (default: NVIDIA)
"""

import signal
import subprocess
import sys

SOURCE = "__attribute__((reqd_work_group_size(1, 1, 1))) __kernel void one(__global int *d) { d[0] = 1; }"
BUILD = f"""
import sys
import pyopencl as cl
platform = next(p for p in cl.get_platforms() if {sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"!r} in p.name)
context = cl.Context([platform.get_devices()[0]])
print(platform.name, "/", context.devices[0].name, "/ driver", context.devices[0].driver_version, flush=True)
cl.Program(context, {SOURCE!r}).build(["-cl-kernel-arg-info"])
print("built")
"""

done = subprocess.run([sys.executable, "-c", BUILD], capture_output=True, text=True)
print(done.stdout.strip())
if done.returncode < 0:
    print(f"clBuildProgram killed the process with {signal.Signals(-done.returncode).name}: {SOURCE}")
    sys.exit(1)
print(done.stderr.strip()[-2000:] if done.returncode else "the kernel built as it should")
sys.exit(0)
