<%include file="_prelude.mako"/>
/* Inclusive prefix sum in three steps over nd_range(G * L, L), scratch = L elements:
 * 1. inclusive_scan_block: each block scans its L elements, block_sums[g] = block total;
 * 2. scan the G block sums (inclusive_scan_block again, one block when G <= L);
 * 3. scan_add_offsets: block g > 0 adds the scanned sum of blocks 0..g-1. */
__kernel void inclusive_scan_block_${S}(__global const ${T} *restrict src, __global ${T} *restrict dst,
                                        __global ${T} *restrict block_sums, __local ${T} *scratch,
                                        const uint n)
{
    const size_t gid = get_global_id(0), lid = get_local_id(0), size = get_local_size(0);
    scratch[lid] = gid < n ? src[gid] : (${T})0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Hillis-Steele: log2(L) steps, reading before anyone writes in each step. */
    for (size_t offset = 1; offset < size; offset <<= 1) {
        const ${T} before = lid >= offset ? scratch[lid - offset] : (${T})0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += before;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n)
        dst[gid] = scratch[lid];
    if (lid == size - 1)
        block_sums[get_group_id(0)] = scratch[lid];
}

__kernel void scan_add_offsets_${S}(__global ${T} *restrict dst,
                                    __global const ${T} *restrict scanned_block_sums, const uint n)
{
    const size_t gid = get_global_id(0), group = get_group_id(0);
    if (group > 0 && gid < n)
        dst[gid] += scanned_block_sums[group - 1];
}
