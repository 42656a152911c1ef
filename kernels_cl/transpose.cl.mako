<%include file="_prelude.mako"/>
#define TILE 16
/* dst (cols x rows) = transpose of src (rows x cols), through a padded local tile so both
 * the reads and the writes are contiguous. Run over
 * nd_range(range(round_up(rows, 16), round_up(cols, 16)), range(16, 16)). */
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void transpose_${S}(__global const ${T} *restrict src, __global ${T} *restrict dst,
                    const uint rows, const uint cols)
{
    __local ${T} tile[TILE][TILE + 1];
    const size_t lx = get_local_id(0), ly = get_local_id(1);
    const size_t x = get_global_id(0), y = get_global_id(1);
    if (y < rows && x < cols)
        tile[ly][lx] = src[y * cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t out_x = get_group_id(1) * TILE + lx, out_y = get_group_id(0) * TILE + ly;
    if (out_y < cols && out_x < rows)
        dst[out_y * rows + out_x] = tile[lx][ly];
}
