<%include file="_prelude.mako"/>
#define TILE 16
/* C (M x N) = A (M x K) * B (K x N), row major, tiled through local memory. Run over
 * nd_range(range(round_up(M, 16), round_up(N, 16)), range(16, 16)). */
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul_${S}(__global const ${T} *restrict A, __global const ${T} *restrict B,
                 __global ${T} *restrict C, const uint M, const uint N, const uint K)
{
    __local ${T} a_tile[TILE][TILE];
    __local ${T} b_tile[TILE][TILE];
    const size_t lx = get_local_id(0), ly = get_local_id(1);
    const size_t col = get_global_id(0), row = get_global_id(1);
    ${T} acc = 0;
    for (uint t = 0; t < (K + TILE - 1) / TILE; ++t) {
        const size_t a_col = t * TILE + lx, b_row = t * TILE + ly;
        a_tile[ly][lx] = (row < M && a_col < K) ? A[row * K + a_col] : (${T})0;
        b_tile[ly][lx] = (b_row < K && col < N) ? B[b_row * N + col] : (${T})0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TILE; ++k)
            acc += a_tile[ly][k] * b_tile[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
