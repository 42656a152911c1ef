"""Raw PyOpenCL: ask a kernel for its program once the program's own handle is released.

OpenCL keeps a program alive while a kernel made from it exists (clReleaseProgram: "deleted once
... no longer needed by any kernel objects"), so clGetKernelInfo(CL_KERNEL_PROGRAM) returns a live
program that clRetainProgram may retain. PyOpenCL's ``kernel.program`` does exactly that. Intel's
CPU runtime 2026.2 fails the retain (CL_INVALID_PROGRAM); PoCL 3.1 and Oclgrind 21.10 do not.

    python kernel_program_after_release.py [PLATFORM_SUBSTRING]   (default: every platform)

Exit status 1 while a platform shows the defect, 0 when none does.
"""

import gc
import sys

import pyopencl as cl

SOURCE = "__kernel void neg(__global int *a) { a[get_global_id(0)] = -a[get_global_id(0)]; }"

wanted = sys.argv[1] if len(sys.argv) > 1 else ""
defective = False
for platform in cl.get_platforms():
    if wanted not in platform.name:
        continue
    context = cl.Context([platform.get_devices()[0]])
    kernel = cl.Program(context, SOURCE).build(cache_dir=False).neg  # the program's handle goes away
    gc.collect()
    try:
        program = kernel.program  # clGetKernelInfo(CL_KERNEL_PROGRAM) + clRetainProgram
        print(f"{platform.name}: kernel.program works ({program.kernel_names})")
    except cl.Error as error:
        defective = True
        print(f"{platform.name}: kernel.program failed once the program was released: {error}")
sys.exit(1 if defective else 0)
