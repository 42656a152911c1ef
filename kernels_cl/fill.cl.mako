<%include file="_prelude.mako"/>
/* dst[i] = value, one work-item per element. */
__kernel void fill_${S}(__global ${T} *dst, const ${T} value)
{
    dst[get_global_id(0)] = value;
}
