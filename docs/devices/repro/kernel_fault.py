"""What NVIDIA's OpenCL reports for the commands after a kernel that faults, on an in-order queue."""
import numpy as np, pyopencl as cl
plat = [p for p in cl.get_platforms() if "NVIDIA" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1]); q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, """
__kernel void good(__global float* a) { a[get_global_id(0)] += 1.0f; }
__kernel void bad(__global float* a) { __global float* p = (__global float*)((ulong)a + ((ulong)1 << 46)); p[get_global_id(0)] = 1.0f; }
""").build()
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4096 * 4)
evs = [("good", prg.good(q, (4096,), None, buf)) for _ in range(2)]
evs.append(("bad", prg.bad(q, (4096,), None, buf)))
for _ in range(3):
    try:
        evs.append(("good", prg.good(q, (4096,), None, buf)))
    except cl.Error as e:
        print("enqueue after the fault raised", e); break
try:
    q.finish(); print("finish ok")
except cl.Error as e:
    print("finish raised", e)
for name, ev in evs:
    try:
        print(name, ev.get_info(cl.event_info.COMMAND_EXECUTION_STATUS))
    except cl.Error as e:
        print(name, "status query raised", e)
