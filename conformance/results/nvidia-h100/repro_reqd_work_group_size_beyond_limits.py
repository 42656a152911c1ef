"""Driver defect (suspected: tools/bisect_build_crash.py names the source that crashes):
NVIDIA's OpenCL compiler kills the process with SIGFPE in clBuildProgram on a kernel with
``__attribute__((reqd_work_group_size(4294967295, 1, 1)))``, a size beyond the device's limits.

OpenCL 3.0 §5.8.2: a program that cannot be built makes clBuildProgram return
CL_BUILD_PROGRAM_FAILURE; a compiler never ends the process. (Such a kernel cannot be launched,
but the program may be built: PoCL, Oclgrind and Intel's CPU runtime build it.) Raw PyOpenCL, no
sycl_ocl: the build runs in a child process, so this script can say how it ended. Exit status 1
while the defect is there, 0 once the program builds or fails with an error.

    python repro_reqd_work_group_size_beyond_limits.py [PLATFORM_SUBSTRING] [SIZE]
    (defaults: NVIDIA 4294967295; SIZE 1, 8 or 16 tries the other suspects)
"""

import signal
import subprocess
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
size = int(sys.argv[2]) if len(sys.argv) > 2 else 4294967295
SOURCE = (
    f"__attribute__((reqd_work_group_size({size}, 1, 1))) "
    "__kernel void k(__global int *d) { d[0] = 1; }"
)
BUILD = f"""
import pyopencl as cl
platform = next(p for p in cl.get_platforms() if {name!r} in p.name)
device = platform.get_devices()[0]
print(platform.name, "/", device.name, "/ driver", device.driver_version, flush=True)
try:
    cl.Program(cl.Context([device]), {SOURCE!r}).build(["-cl-kernel-arg-info"])
    print("built")
except cl.Error as error:
    print("refused with an error, as allowed:", error.code)
"""

done = subprocess.run([sys.executable, "-c", BUILD], capture_output=True, text=True)
print(done.stdout.strip())
if done.returncode < 0:
    print(f"clBuildProgram killed the process with {signal.Signals(-done.returncode).name}: {SOURCE}")
    sys.exit(1)
if done.returncode:
    print(done.stderr.strip()[-2000:])
sys.exit(0)
