// The kernels of il_kernels.spv (tests/test_kernel_il.py), built by tools/build_spirv.sh.

__kernel void il_axpy(__global float *y, __global const float *x, float a, uint n) {
    size_t i = get_global_id(0);
    if (i < n) {
        y[i] += a * x[i];
    }
}

__kernel void il_offset(__global int *out, int delta) {
    out[get_global_id(0)] += delta;
}

// A float and an integer, launched without declared types.
__kernel void il_scale(__global float *a, float s, int count) {
    size_t i = get_global_id(0);
    if (i < count) {
        a[i] *= s;
    }
}

// One partial sum per work-group of 4 items, through local memory.
__kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void il_group_sum(__global const float *in, __global float *sums, __local float *scratch) {
    size_t lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        sums[get_group_id(0)] = scratch[0] + scratch[1] + scratch[2] + scratch[3];
    }
}
