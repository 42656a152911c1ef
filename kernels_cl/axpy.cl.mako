<%include file="_prelude.mako"/>
/* y[i] = a * x[i] + y[i] (BLAS axpy). */
__kernel void axpy_${S}(const ${T} a, __global const ${T} *restrict x, __global ${T} *restrict y)
{
    const size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

/* a[i] = b[i] + scalar * c[i] (the STREAM triad). */
__kernel void triad_${S}(__global ${T} *restrict a, __global const ${T} *restrict b,
                         __global const ${T} *restrict c, const ${T} scalar)
{
    const size_t i = get_global_id(0);
    a[i] = b[i] + scalar * c[i];
}
