## The generated parts of a kernel launched with reductions (docs/reductions.md): rendered by
## sycl_ocl/_kernel_bundle/reduction.py around the kernel's own unit, one def per place.
##   reds:   the reductions, each with .name (the reducer), .ctype, .expr (in a and b),
##           .identity (a literal, or None: no identity), .initialize (the variable's value is
##           not combined in) and .count (the variable's elements: 1, or a span's extent)
##   others: reducer names of the unit's other kernels (their SYCL_COMBINE does nothing here)
##   L:      the work-group size (reqd: its OpenCL sizes); P: the least power of two >= L
##   items:  over a range, its dimensions (0: over an nd_range)
##   atomics64: the device has cl_khr_int64_base_atomics (64-bit partials move by atomics)
##   empty:  an empty nd_range: one work-group that calls no body
<%def name="prelude(reds, others, fp64, items)">\
% if fp64:
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
% endif
#define SYCL_REDUCER(T, name) __global T *__sycl_reducer_##name
#define SYCL_REDUCER_ACC(T, name) __private __sycl_acc_t_##name *__sycl_reducer_##name
#define SYCL_COMBINE(name, value) __sycl_combine_##name(__sycl_reducer_##name, (value))
#define SYCL_COMBINE_AT(name, i, value) __sycl_combine_at_##name(__sycl_reducer_##name, (i), (value))
% for name in sorted(set(others) | {r.name for r in reds}):
#define __sycl_combine_${name}(r, v) ((void)(r), (void)(v))
#define __sycl_combine_at_${name}(r, i, v) ((void)(r), (void)(i), (void)(v))
% endfor
% if items:
## Over a range, the kernel body runs once per item of the range in a loop of each work-item:
## get_global_id & co. in the body are the item's (its hidden parameters __sycl_i*, __sycl_r*).
#define __SYCL_GID(d) ((d) == 0 ? __sycl_i0 : (d) == 1 ? __sycl_i1 : (d) == 2 ? __sycl_i2 : 0)
#define __SYCL_GSIZE(d) ((d) == 0 ? __sycl_r0 : (d) == 1 ? __sycl_r1 : (d) == 2 ? __sycl_r2 : 1)
#define __SYCL_GLINEAR() (__sycl_i0 + __sycl_r0 * (__sycl_i1 + __sycl_r1 * __sycl_i2))
#define __SYCL_WORK_DIM() ${items}u
% endif
</%def>
## Per reduction i: its accumulator type __sycl_acc_t_<name>, the empty accumulator
## __sycl_none_i() and the combination of two accumulators __sycl_join_i(a, b).
<%def name="ops(reds)">\
% for r in reds:
<% i, T, A = loop.index, r.ctype, '__sycl_acc_t_' + r.name %>\
static inline ${T} __sycl_op_${i}(${T} a, ${T} b) { return ${r.expr}; }
#undef __sycl_combine_${r.name}
#undef __sycl_combine_at_${r.name}
% if r.identity is not None:
typedef ${T} ${A};
#define __sycl_none_${i}() (${r.identity})
#define __sycl_join_${i}(a, b) __sycl_op_${i}((a), (b))
#define __sycl_combine_${r.name}(r, v) (*(r) = __sycl_op_${i}(*(r), (${T})(v)))
#define __sycl_combine_at_${r.name}(r, i, v) ((r)[i] = __sycl_op_${i}((r)[i], (${T})(v)))
% else:
## No identity (SYCL 2020 §4.9.2): an accumulator is a 2-vector, its value (x) and whether it
## holds one (y, 0 or 1); one that combined nothing contributes nothing. (A vector, not a
## struct: functions return it by value, where a struct's return pointer leaves an intrinsic
## that Oclgrind 21.10 cannot run.)
typedef ${T}2 ${A};
#define __sycl_none_${i}() ((${A})((${T})0, (${T})0))
static inline ${A} __sycl_join_${i}(${A} a, ${A} b) {
    if (a.y != (${T})0 && b.y != (${T})0) a.x = __sycl_op_${i}(a.x, b.x); else if (b.y != (${T})0) a = b;
    return a;
}
static inline void __sycl_add_${i}(__private ${A} *r, ${T} v) {
    ${A} a = *r;
    a.x = a.y != (${T})0 ? __sycl_op_${i}(a.x, v) : v;
    a.y = (${T})1;
    *r = a;
}
#define __sycl_combine_${r.name}(r, v) __sycl_add_${i}((r), (${T})(v))
#define __sycl_combine_at_${r.name}(r, i, v) __sycl_add_${i}((r) + (i), (${T})(v))
% endif
% endfor
</%def>
<%def name="restore(reds)">\
% for r in reds:
#undef __sycl_combine_${r.name}
#define __sycl_combine_${r.name}(r, v) ((void)(r), (void)(v))
#undef __sycl_combine_at_${r.name}
#define __sycl_combine_at_${r.name}(r, i, v) ((void)(r), (void)(i), (void)(v))
% endfor
</%def>
## The tree of one work-group over scratch[0..L): leaves the combination in scratch[0].
<%def name="tree(i, lid, L, P)">\
    barrier(CLK_LOCAL_MEM_FENCE);
% for s in [P >> k for k in range(1, P.bit_length()) if (P >> k) > 0]:
    if (${lid} < ${s}u${'' if s * 2 <= L else f' && {lid} + {s}u < {L}u'})
        __sycl_scratch${i}[${lid}] = __sycl_join_${i}(__sycl_scratch${i}[${lid}], __sycl_scratch${i}[${lid} + ${s}u]);
    barrier(CLK_LOCAL_MEM_FENCE);
% endfor
</%def>
## One call of the body over a range, for item v, combining into the accumulators named with suffix.
<%def name="call(body, reds, args, items, v, suffix)">\
<% accs = ['__sycl_acc%d%s' % (i, suffix) for i in range(len(reds))] %>\
% if items == 1:
        ${body}(${v}, 0, 0, __sycl_n0, 1, 1, ${', '.join(accs + args)});
% elif items == 2:
        ${body}((${v}) % __sycl_n0, (${v}) / __sycl_n0, 0, __sycl_n0, __sycl_n1, 1, ${', '.join(accs + args)});
% else:
        ${body}((${v}) % __sycl_n0, ((${v}) / __sycl_n0) % __sycl_n1, (${v}) / __sycl_n0 / __sycl_n1, __sycl_n0, __sycl_n1, __sycl_n2, ${', '.join(accs + args)});
% endif
</%def>
## How a partial result moves between work-groups: through 32-bit (64-bit) atomics on its bits,
## the only accesses OpenCL 1.2 makes coherent between work-groups of one launch (and that
## Oclgrind's race detector accepts); 64-bit ones without int64 atomics through volatile accesses.
<%def name="partial_access(i, r, atomics64)">\
<% wide = r.ctype in ('long', 'ulong', 'double') %>\
% if not wide:
static inline void __sycl_put_${i}(__global ${r.ctype} *p, ${r.ctype} v) { atomic_xchg((volatile __global uint *)p, as_uint(v)); }
static inline ${r.ctype} __sycl_get_${i}(__global ${r.ctype} *p) { return as_${r.ctype}(atomic_add((volatile __global uint *)p, 0u)); }
% elif atomics64:
static inline void __sycl_put_${i}(__global ${r.ctype} *p, ${r.ctype} v) { atom_xchg((volatile __global ulong *)p, as_ulong(v)); }
static inline ${r.ctype} __sycl_get_${i}(__global ${r.ctype} *p) { return as_${r.ctype}(atom_add((volatile __global ulong *)p, 0ul)); }
% else:
static inline void __sycl_put_${i}(__global ${r.ctype} *p, ${r.ctype} v) { *(volatile __global ${r.ctype} *)p = v; }
static inline ${r.ctype} __sycl_get_${i}(__global ${r.ctype} *p) { return *(volatile __global ${r.ctype} *)p; }
% endif
<% A = '__sycl_acc_t_' + r.name %>\
## A partial is stored at p[at] (of n); without an identity, whether it holds a value at
## ((uint *)(p + n))[at]. The variable gets the final accumulator a (if it holds a value).
% if r.identity is not None:
static inline void __sycl_store_${i}(__global ${r.ctype} *p, uint at, uint n, ${A} a) { __sycl_put_${i}(p + at, a); }
static inline ${A} __sycl_load_${i}(__global ${r.ctype} *p, uint at, uint n) { return __sycl_get_${i}(p + at); }
static inline void __sycl_write_${i}(__global ${r.ctype} *out, ${A} a) { *out = ${'a' if r.initialize else f'__sycl_op_{i}(*out, a)'}; }
% else:
static inline void __sycl_store_${i}(__global ${r.ctype} *p, uint at, uint n, ${A} a) {
    __sycl_put_${i}(p + at, a.x);
    atomic_xchg((volatile __global uint *)(p + n) + at, a.y != (${r.ctype})0);
}
static inline ${A} __sycl_load_${i}(__global ${r.ctype} *p, uint at, uint n) {
    ${A} a;
    a.x = __sycl_get_${i}(p + at);
    a.y = (${r.ctype})atomic_add((volatile __global uint *)(p + n) + at, 0u);
    return a;
}
static inline void __sycl_write_${i}(__global ${r.ctype} *out, ${A} a) {
    if (a.y != (${r.ctype})0)
        *out = ${'a.x' if r.initialize else f'__sycl_op_{i}(*out, a.x)'};
}
% endif
</%def>
<%def name="kernels(name, body, reds, params, args, reqd, items, chunked, L, P, atomics64, empty)">\

% if atomics64 and any(r.ctype in ('long', 'ulong', 'double') for r in reds):
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
% endif
% for r in reds:
${partial_access(loop.index, r, atomics64)}\
% endfor

/* The launch: each work-item keeps a private accumulator per reducer, ${'loops over the range' if items else 'runs the body once'},
 * then each work-group combines its accumulators (a tree in local memory) into one partial;
 * the last work-group to finish (a counter says which) combines the partials into the variable. */
__kernel __attribute__((reqd_work_group_size(${reqd}))) void ${name}(
<% plist = ['__global %s *__sycl_part%d' % (r.ctype, i) for i, r in enumerate(reds)] \
          + ['__global %s *__sycl_out%d' % (r.ctype, i) for i, r in enumerate(reds)] \
          + ['__global uint *__sycl_done'] \
          + (['const ulong __sycl_n0', 'const ulong __sycl_n1', 'const ulong __sycl_n2'] if items else []) \
          + list(params) %>\
    ${',\n    '.join(plist)})
{
% for r in reds:
    __local __sycl_acc_t_${r.name} __sycl_scratch${loop.index}[${L}];
    __sycl_acc_t_${r.name} __sycl_acc${loop.index}[${r.count}];
% endfor
% for r in reds:
    for (uint e = 0; e < ${r.count}u; e++)
        __sycl_acc${loop.index}[e] = __sycl_none_${loop.index}();
% endfor
    const uint __sycl_lid = ${'get_local_id(0)' if items else 'get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2))'};
% if items:
    const ulong __sycl_total = __sycl_n0 * __sycl_n1 * __sycl_n2;
    ## Four items at a time into four accumulators (independent loads and combinations: on a GPU
    ## four loads in flight per work-item, which a sum needs to reach the memory's bandwidth),
    ## combined as (acc + acc_1) + (acc_2 + acc_3). On a CPU each work-item takes a contiguous
    ## run of items (its caches and prefetchers like it); on a GPU every global-size-th item, so
    ## that neighbouring work-items read neighbouring items (coalesced loads).
% for r in reds:
    __sycl_acc_t_${r.name} __sycl_acc${loop.index}_1[${r.count}], __sycl_acc${loop.index}_2[${r.count}], __sycl_acc${loop.index}_3[${r.count}];
    for (uint e = 0; e < ${r.count}u; e++)
        __sycl_acc${loop.index}_1[e] = __sycl_acc${loop.index}_2[e] = __sycl_acc${loop.index}_3[e] = __sycl_none_${loop.index}();
% endfor
% if chunked:
    const ulong __sycl_chunk = (__sycl_total + get_global_size(0) - 1) / get_global_size(0);
    const ulong __sycl_end = min(__sycl_total, (get_global_id(0) + 1) * __sycl_chunk);
    const ulong __sycl_step = 1;
    ulong __sycl_v = get_global_id(0) * __sycl_chunk;
% else:
    const ulong __sycl_end = __sycl_total;
    const ulong __sycl_step = get_global_size(0);
    ulong __sycl_v = get_global_id(0);
% endif
    for (; __sycl_v + 3 * __sycl_step < __sycl_end; __sycl_v += 4 * __sycl_step) {
% for u in range(4):
${call(body, reds, args, items, '__sycl_v + %d * __sycl_step' % u, '_%d' % u if u else '')}\
% endfor
    }
    for (; __sycl_v < __sycl_end; __sycl_v += __sycl_step) {
${call(body, reds, args, items, '__sycl_v', '')}\
    }
% for r in reds:
    for (uint e = 0; e < ${r.count}u; e++)
        __sycl_acc${loop.index}[e] = __sycl_join_${loop.index}(__sycl_join_${loop.index}(__sycl_acc${loop.index}[e], __sycl_acc${loop.index}_1[e]), __sycl_join_${loop.index}(__sycl_acc${loop.index}_2[e], __sycl_acc${loop.index}_3[e]));
% endfor
% elif not empty:
    ## Called by every work-item, under no condition: the body's barriers must be reached by
    ## all work-items of the group. An empty nd_range has a variant of its own that calls no
    ## body (one work-group that writes the identity, or leaves the variable's value).
    ${body}(${', '.join(['__sycl_acc%d' % i for i in range(len(reds))] + args)});
% endif
    const uint __sycl_group = ${'get_group_id(0)' if items else 'get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2))'};
    const uint __sycl_groups = get_num_groups(0) * get_num_groups(1) * get_num_groups(2);
    ## The loops over a span's elements hold barriers: a span's trip count is read at run time,
    ## as PoCL 3.1's work-group compiler fails an assertion (ParallelRegion.cc) on such a loop
    ## of 2 iterations known at compile time (docs/reductions.md).
% for r in reds:
% if r.count > 1:
    volatile uint __sycl_count${loop.index}_v = ${r.count}u;
    const uint __sycl_count${loop.index} = __sycl_count${loop.index}_v;
% else:
    const uint __sycl_count${loop.index} = 1u;
% endif
% endfor
% for r in reds:
    for (uint e = 0; e < __sycl_count${loop.index}; e++) {
        __sycl_scratch${loop.index}[__sycl_lid] = __sycl_acc${loop.index}[e];
${tree(loop.index, '__sycl_lid', L, P)}\
        if (__sycl_lid == 0)
            __sycl_store_${loop.index}(__sycl_part${loop.index}, __sycl_group * ${r.count}u + e, __sycl_groups * ${r.count}u, __sycl_scratch${loop.index}[0]);
    }
% endfor
    /* Work-item 0 wrote the group's partials: the fence orders them before its count. */
    __local uint __sycl_last;
    if (__sycl_lid == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        __sycl_last = atomic_inc(__sycl_done) == __sycl_groups - 1u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The final combination, in a fixed order whichever group is last: each work-item combines
     * every L-th partial, then the tree; and the variable's value unless the reduction
     * initializes to the identity. The counter goes back to 0 for the next launch. Every
     * work-group runs the tree's barriers (PoCL 3.1 loses stores of barrier regions under a
     * condition), the last one alone with the partials. */
    const uint __sycl_final = __sycl_last;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
% for r in reds:
    for (uint e = 0; e < __sycl_count${loop.index}; e++) {
        __sycl_acc_t_${r.name} acc = __sycl_none_${loop.index}();
        for (uint i = __sycl_lid; __sycl_final && i < __sycl_groups; i += ${L}u)
            acc = __sycl_join_${loop.index}(acc, __sycl_load_${loop.index}(__sycl_part${loop.index}, i * ${r.count}u + e, __sycl_groups * ${r.count}u));
        __sycl_scratch${loop.index}[__sycl_lid] = acc;
${tree(loop.index, '__sycl_lid', L, P)}\
        if (__sycl_final && __sycl_lid == 0)
            __sycl_write_${loop.index}(__sycl_out${loop.index} + e, __sycl_scratch${loop.index}[0]);
    }
% endfor
    if (__sycl_final && __sycl_lid == 0)
        atomic_xchg(__sycl_done, 0u);
}
</%def>
