<%include file="_prelude.mako"/>
/* dst[i] = src[i], one work-item per element. */
__kernel void copy_${S}(__global const ${T} *restrict src, __global ${T} *restrict dst)
{
    const size_t i = get_global_id(0);
    dst[i] = src[i];
}
