"""The reducer parameters of OpenCL C kernels (SYCL 2020 §4.9.2.3; docs/reductions.md).

A kernel receives a reduction's reducer as a parameter ``SYCL_REDUCER(T, name)`` and combines
into it with ``SYCL_COMBINE(name, value)`` (element ``i`` of a span reduction's:
``SYCL_COMBINE_AT(name, i, value)``). A unit that mentions them is registered with
``PRELUDE`` ahead of its text, which gives them a meaning in a plain build (a pointer parameter,
a combination that does nothing), so the unit builds in every bundle; a launch with reductions
builds a generated variant of the unit instead (``_kernel_bundle.reduction``), where the
reducer is a private accumulator.
"""

from __future__ import annotations

from ._signature import KernelDecl, KernelParam

MACRO = "SYCL_REDUCER"
# What a reducer parameter is named after preprocessing (the plain definition of MACRO).
PARAM_PREFIX = "__sycl_reducer_"
PRELUDE = f"""#ifndef {MACRO}
#define {MACRO}(T, name) __global T *{PARAM_PREFIX}##name
#define SYCL_COMBINE(name, value) ((void){PARAM_PREFIX}##name, (void)(value))
#define SYCL_COMBINE_AT(name, i, value) ((void){PARAM_PREFIX}##name, (void)(i), (void)(value))
#endif
#line 1
"""
PRELUDE_LINES = PRELUDE.count("\n")


def with_prelude(source: str) -> str:
    """``source`` as it is registered: with ``PRELUDE`` if it mentions reducers."""
    return PRELUDE + source if MACRO in source else source


def reducers(decl: KernelDecl) -> list[KernelParam]:
    """The kernel's reducer parameters, in order."""
    return [p for p in decl.params if p.name.startswith(PARAM_PREFIX)]


def reducer_name(param: KernelParam) -> str:
    """The name the kernel gave a reducer parameter (``SYCL_REDUCER(T, name)``)."""
    return param.name[len(PARAM_PREFIX):]
