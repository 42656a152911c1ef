"""Driver defect: the process dies (SIGSEGV) at exit after a clLinkProgram that failed.

The link itself fails as OpenCL requires (CL_LINK_PROGRAM_FAILURE: a kernel calls a function no
object defines); the crash comes afterwards, when the runtime unloads ("PLEASE submit a bug
report to https://software.intel.com/..."). Raw PyOpenCL, no sycl_ocl. Run it in a shell and
look at the exit status: 139 (SIGSEGV) while the defect is there, 0 once it is fixed.

    python repro_link_failure_crash.py [PLATFORM_SUBSTRING]   (default: Intel(R) OpenCL)
"""

import sys

import pyopencl as cl

SOURCE = "int missing(int x);\n__kernel void caller(__global int *d) { d[0] = missing(1); }\n"

name = sys.argv[1] if len(sys.argv) > 1 else "Intel(R) OpenCL"
platform = next(p for p in cl.get_platforms() if name in p.name)
context = cl.Context([platform.get_devices()[0]])
objects = cl.Program(context, SOURCE).compile("")
try:
    cl.link_program(context, [objects], "")
    print(f"{platform.name}: linked a program with an undefined function (a defect of its own)")
except cl.Error as error:
    print(f"{platform.name}: the link failed as required ({error.code}); now exiting", flush=True)
