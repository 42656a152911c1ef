"""Driver deviation: a buffer larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE is created.

OpenCL 3.0 §5.2.1: clCreateBuffer returns CL_INVALID_BUFFER_SIZE when size is greater than
CL_DEVICE_MAX_MEM_ALLOC_SIZE. NVIDIA reports a quarter of the GPU's memory as that limit
(21254373376 bytes on an H100 80GB) but creates larger buffers. This creates one a byte over
the limit, then fills its last byte and reads it back. Raw PyOpenCL, no sycl_ocl. Exit status
1 when the buffer is created and used, 0 when any step refuses it.

Driver 580.159.04 (2026-11-23): the buffer is created, and a kernel touching its start runs
(conformance BU-20), but the fill of its last byte fails with CL_OUT_OF_RESOURCES (-5), so
this prints "refused ... -5" and exits 0: the size is refused late, at use, with another code.

    python repro_alloc_beyond_max.py [PLATFORM_SUBSTRING]   (default: NVIDIA)
"""

import sys

import numpy as np
import pyopencl as cl

name = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
platform = next(p for p in cl.get_platforms() if name in p.name)
device = platform.get_devices()[0]
context = cl.Context([device])
queue = cl.CommandQueue(context)
size = device.max_mem_alloc_size + 1
try:
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
    cl.enqueue_fill_buffer(queue, buffer, np.uint8(0xAB), size - 1, 1)
    last = np.zeros(1, np.uint8)
    cl.enqueue_copy(queue, last, buffer, src_offset=size - 1)
    queue.finish()
except cl.Error as error:
    print(f"{platform.name}: refused {size} bytes as required: {error.code}")
    sys.exit(0)
print(
    f"{platform.name}: created a {size}-byte buffer, beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE "
    f"({device.max_mem_alloc_size}), and used it (last byte {last[0]:#x}); expected "
    "CL_INVALID_BUFFER_SIZE"
)
sys.exit(1)
