"""The names of OpenCL C built-in functions (OpenCL C 3.0 §6.15, "Built-in Functions").

A kernel named like one (``normalize``, ``dot``, ``clamp``) compiles, but some drivers cannot
create it: PoCL renames it (``_cl_normalize``) and ``clCreateKernel`` fails with
``CL_INVALID_KERNEL_NAME``. The names here let that failure say why.
"""

from __future__ import annotations

_SCALARS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "double")
_WIDTHS = ("", "2", "3", "4", "8", "16")
_ROUNDING = ("", "_rte", "_rtz", "_rtp", "_rtn")
_FAST_MATH = ("cos", "divide", "exp", "exp2", "exp10", "log", "log2", "log10", "powr", "recip", "rsqrt",
              "sin", "sqrt", "tan")

_WORDS = """
get_work_dim get_global_size get_global_id get_local_size get_enqueued_local_size get_local_id
get_num_groups get_group_id get_global_offset get_global_linear_id get_local_linear_id
get_sub_group_size get_max_sub_group_size get_num_sub_groups get_enqueued_num_sub_groups
get_sub_group_id get_sub_group_local_id
acos acosh acospi asin asinh asinpi atan atan2 atanh atanpi atan2pi cbrt ceil copysign cos cosh
cospi erfc erf exp exp2 exp10 expm1 fabs fdim floor fma fmax fmin fmod fract frexp hypot ilogb
ldexp lgamma lgamma_r log log2 log10 log1p logb mad maxmag minmag modf nan nextafter pow pown
powr remainder remquo rint rootn round rsqrt sin sincos sinh sinpi sqrt tan tanh tanpi tgamma trunc
abs abs_diff add_sat hadd rhadd clamp clz ctz mad_hi mad_sat max min mul_hi rotate sub_sat
upsample popcount mad24 mul24
degrees mix radians step smoothstep sign
cross dot distance length normalize fast_distance fast_length fast_normalize
isequal isnotequal isgreater isgreaterequal isless islessequal islessgreater isfinite isinf isnan
isnormal isordered isunordered signbit any all bitselect select
barrier work_group_barrier mem_fence read_mem_fence write_mem_fence atomic_work_item_fence
to_global to_local to_private get_fence
async_work_group_copy async_work_group_strided_copy wait_group_events prefetch
atomic_add atomic_sub atomic_xchg atomic_inc atomic_dec atomic_cmpxchg atomic_min atomic_max
atomic_and atomic_or atomic_xor atom_add atom_sub atom_xchg atom_inc atom_dec atom_cmpxchg
atom_min atom_max atom_and atom_or atom_xor
atomic_init atomic_store atomic_load atomic_exchange atomic_compare_exchange_strong
atomic_compare_exchange_weak atomic_fetch_add atomic_fetch_sub atomic_fetch_or atomic_fetch_xor
atomic_fetch_and atomic_fetch_min atomic_fetch_max atomic_flag_test_and_set atomic_flag_clear
shuffle shuffle2 vec_step printf
read_imagef read_imagei read_imageui read_imageh write_imagef write_imagei write_imageui
write_imageh get_image_width get_image_height get_image_depth get_image_channel_data_type
get_image_channel_order get_image_dim get_image_array_size get_image_num_mip_levels
get_image_num_samples
work_group_all work_group_any work_group_broadcast sub_group_all sub_group_any sub_group_broadcast
sub_group_barrier
read_pipe write_pipe reserve_read_pipe reserve_write_pipe commit_read_pipe commit_write_pipe
is_valid_reserve_id get_pipe_num_packets get_pipe_max_packets
enqueue_kernel enqueue_marker get_kernel_work_group_size get_kernel_preferred_work_group_size_multiple
retain_event release_event create_user_event is_valid_event set_user_event_status
capture_event_profiling_info get_default_queue ndrange_1D ndrange_2D ndrange_3D
"""


def _generated() -> set[str]:
    names: set[str] = set()
    for scope in ("work_group", "sub_group"):
        for op in ("add", "min", "max"):
            names |= {f"{scope}_reduce_{op}", f"{scope}_scan_exclusive_{op}", f"{scope}_scan_inclusive_{op}"}
    for fetch in ("add", "sub", "or", "xor", "and", "min", "max"):
        names.add(f"atomic_fetch_{fetch}_explicit")
    for op in ("store", "load", "exchange", "compare_exchange_strong", "compare_exchange_weak",
               "flag_test_and_set", "flag_clear"):
        names.add(f"atomic_{op}_explicit")
    for width in _WIDTHS:
        if width:
            names |= {f"vload{width}", f"vstore{width}", f"vloada_half{width}"}
        names.add(f"vload_half{width}")
        names |= {f"{store}{width}{r}" for store in ("vstore_half", "vstorea_half") for r in _ROUNDING}
        for scalar in _SCALARS:
            names.add(f"as_{scalar}{width}")
            names |= {f"convert_{scalar}{width}{sat}{r}" for sat in ("", "_sat") for r in _ROUNDING}
    names |= {f"{prefix}_{f}" for prefix in ("half", "native") for f in _FAST_MATH}
    return names


BUILTIN_FUNCTIONS = frozenset(_WORDS.split()) | frozenset(_generated())
