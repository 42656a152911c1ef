"""Raw PyOpenCL: a marker's CL_PROFILING_COMMAND_QUEUED on a profiling queue.

OpenCL defines it as the device's time counter when the command was enqueued, so it is a real
time no later than CL_PROFILING_COMMAND_SUBMIT. Intel's CPU runtime 2026.2 reports 0 for a
marker (clEnqueueMarkerWithWaitList) while its SUBMIT, START and END are real; a fill's QUEUED
is real. PoCL 3.1 and Oclgrind 21.10 stamp markers.

    python marker_queued_zero.py [PLATFORM_SUBSTRING]   (default: every platform)

Exit status 1 while a platform shows the defect, 0 when none does.
"""

import sys

import pyopencl as cl

wanted = sys.argv[1] if len(sys.argv) > 1 else ""
defective = False
for platform in cl.get_platforms():
    if wanted not in platform.name:
        continue
    device = platform.get_devices()[0]
    context = cl.Context([device])
    queue = cl.CommandQueue(context, device, cl.command_queue_properties.PROFILING_ENABLE)
    marker = cl.enqueue_marker(queue)
    marker.wait()
    times = marker.profile
    stamps = (times.queued, times.submit, times.start, times.end)
    ok = 0 < times.queued <= times.submit
    defective |= not ok
    print(f"{platform.name}: marker QUEUED, SUBMIT, START, END = {stamps}: {'ok' if ok else 'QUEUED is not a time'}")
sys.exit(1 if defective else 0)
