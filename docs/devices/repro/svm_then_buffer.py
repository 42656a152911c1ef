"""Raw PyOpenCL: set an SVM pointer on a kernel argument, then a cl_mem on the same argument."""
import numpy as np
import pyopencl as cl

SRC = """__kernel void add(__global int* dst, __global const int* src, int k)
{ size_t i = get_global_id(0); dst[i] = src[i] + k; }"""
for plat in cl.get_platforms():
    dev = plat.get_devices()[0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    knl = cl.Program(ctx, SRC).build().add
    knl.set_scalar_arg_dtypes([None, None, np.int32])
    results = []
    try:
        svm = cl.SVM(cl.csvm_empty(ctx, 32, np.int32))
        knl(q, (32,), None, svm, svm, np.int32(1))
        q.finish()
        results.append("svm ok")
    except Exception as e:
        results.append(f"svm failed: {e}")
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 128)
    for attempt in ("buffer after svm", "buffer again"):
        try:
            knl(q, (32,), None, buf, buf, np.int32(1))
            q.finish()
            results.append(f"{attempt}: ok")
        except Exception as e:
            results.append(f"{attempt}: {e}")
    try:
        knl(q, (32,), None, svm, buf, np.int32(1))
        q.finish()
        results.append("mixed svm+buffer: ok")
    except Exception as e:
        results.append(f"mixed svm+buffer: {e}")
    fresh = cl.Program(ctx, SRC).build().add
    fresh.set_scalar_arg_dtypes([None, None, np.int32])
    try:
        fresh(q, (32,), None, buf, buf, np.int32(1))
        q.finish()
        results.append("buffer on a fresh kernel: ok")
    except Exception as e:
        results.append(f"buffer on a fresh kernel: {e}")
    print(plat.name, "|", "; ".join(results))
