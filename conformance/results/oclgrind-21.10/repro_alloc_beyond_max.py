"""Driver defect: a buffer larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE is created.

OpenCL 1.2 §5.2.1: clCreateBuffer returns CL_INVALID_BUFFER_SIZE when size is greater than
CL_DEVICE_MAX_MEM_ALLOC_SIZE. Raw PyOpenCL, no sycl_ocl. Exit status 1 while the defect is there.

    python repro_alloc_beyond_max.py [PLATFORM_SUBSTRING]   (default: Oclgrind)
"""

import sys

import pyopencl as cl

name = sys.argv[1] if len(sys.argv) > 1 else "Oclgrind"
platform = next(p for p in cl.get_platforms() if name in p.name)
device = platform.get_devices()[0]
context = cl.Context([device])
size = device.max_mem_alloc_size + 1
try:
    cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
except cl.Error as error:
    print(f"{platform.name}: refused {size} bytes as required: {error.code}")
    sys.exit(0)
print(
    f"{platform.name}: created a {size}-byte buffer, beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE "
    f"({device.max_mem_alloc_size}); expected CL_INVALID_BUFFER_SIZE"
)
sys.exit(1)
