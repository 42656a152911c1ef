"""Driver defect: clLinkProgram succeeds although a kernel calls a function no object defines.

OpenCL 1.2 §5.6.3: clLinkProgram fails with CL_LINK_PROGRAM_FAILURE when linking fails, which
includes an unresolved external function. Raw PyOpenCL, no sycl_ocl. Exit status 1 while the
defect is there.

    python repro_link_unresolved.py [PLATFORM_SUBSTRING]   (default: Oclgrind)
"""

import sys

import pyopencl as cl

SOURCE = "int missing(int x);\n__kernel void caller(__global int *d) { d[0] = missing(1); }\n"

name = sys.argv[1] if len(sys.argv) > 1 else "Oclgrind"
platform = next(p for p in cl.get_platforms() if name in p.name)
context = cl.Context([platform.get_devices()[0]])
objects = cl.Program(context, SOURCE).compile("")
try:
    cl.link_program(context, [objects], "")
except cl.Error as error:
    print(f"{platform.name}: the link failed as required: {error.code}")
    sys.exit(0)
print(
    f"{platform.name}: linked a program whose kernel calls an undefined function 'missing'; "
    "expected CL_LINK_PROGRAM_FAILURE"
)
sys.exit(1)
