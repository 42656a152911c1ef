"""Raw PyOpenCL: does a cl_kernel that always sees each argument as the same kind (SVM pointer or
cl_mem) work, when the kinds differ between arguments? sycl_ocl's workaround of the defect in
svm_then_buffer.py (one cl_kernel per mix of argument kinds, docs/usm.md) relies on it.

Each case runs on a fresh cl_kernel, twice with different memory, and checks the result.
"""
import numpy as np
import pyopencl as cl

SRC = """__kernel void add(__global int* dst, __global const int* src, int k)
{ size_t i = get_global_id(0); dst[i] = src[i] + k; }"""
N = 32


def svm(ctx, q, values):
    mem = cl.SVM(cl.csvm_empty(ctx, N, np.int32))
    cl.enqueue_copy(q, mem, values)
    return mem


def buf(ctx, q, values):
    return cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)


def case(ctx, q, program, dst_kind, src_kind):
    knl = cl.Kernel(program, "add")  # a fresh cl_kernel for each case
    knl.set_scalar_arg_dtypes([None, None, np.int32])
    for round_ in range(2):
        try:
            src = np.arange(N, dtype=np.int32) * (round_ + 1)
            dst, src_mem = dst_kind(ctx, q, np.zeros(N, dtype=np.int32)), src_kind(ctx, q, src)
            knl(q, (N,), None, dst, src_mem, np.int32(7))
            out = np.zeros(N, dtype=np.int32)
            cl.enqueue_copy(q, out, dst)
            q.finish()
            if not (out == src + 7).all():
                return f"round {round_}: wrong result"
        except Exception as e:
            return f"round {round_}: {e}"
    return "ok"


for plat in cl.get_platforms():
    dev = plat.get_devices()[0]
    if not dev.svm_capabilities & cl.device_svm_capabilities.COARSE_GRAIN_BUFFER:
        print(plat.name, "| no SVM")
        continue
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    program = cl.Program(ctx, SRC).build()
    cases = (("svm+svm", svm, svm), ("buffer+buffer", buf, buf), ("svm dst+buffer src", svm, buf),
             ("buffer dst+svm src", buf, svm))
    print(plat.name, "|", "; ".join(f"{name}: {case(ctx, q, program, d, s)}" for name, d, s in cases))
