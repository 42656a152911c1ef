<%include file="_prelude.mako"/>
/* Sum of src[0..n): each work-group writes one partial sum to partial[group].
 * Run it over nd_range(G * L, L) with L a power of two and scratch = L elements, then once
 * more over the G partials with one work-group to get the total. */
__kernel void reduce_sum_${S}(__global const ${T} *restrict src, __global ${T} *restrict partial,
                              __local ${T} *scratch, const uint n)
{
    const size_t lid = get_local_id(0);
    ${T} acc = 0;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        acc += src[i];
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
