/* out[i] = start + i: index sequences (numpy.arange on the device). */
__kernel void iota_uint32(__global uint *out, const uint start)
{
    const size_t i = get_global_id(0);
    out[i] = start + (uint)i;
}
