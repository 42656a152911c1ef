"""Kernel names and signatures known before any compile (SYCL 2020 §4.11.6; item 1).

The registry reads each unit's ``__kernel`` declarations through a small preprocessor:
comments, conditional blocks, object- and function-like macros (with ``#`` / ``##``) and the
unit's ``-D`` options are honoured. Each parse is checked against the compiler's own list.
"""

from __future__ import annotations

from pathlib import Path

import pyopencl as cl
import pytest
from kernel_support import child_json

import sycl_ocl as sycl
from sycl_ocl._kernel_bundle._preprocess import definitions_from_options
from sycl_ocl._kernel_bundle._signature import parse_kernels

TRICKY = r"""
// __kernel void ks_in_line_comment(__global int *a) {}
/* __kernel void ks_in_block_comment(__global int *a) {}
   spanning lines */
#define KS_T float
#define KS_NAME(kind) ks_scale_##kind
#define KS_WG 8
#define KS_STR(x) #x
#if 0
__kernel void ks_disabled(__global int *a) {}
#elif defined(KS_WG) && KS_WG > 4
__kernel __attribute__((reqd_work_group_size(KS_WG, 1, 1)))
void KS_NAME(f32)(__global KS_T *restrict a, const KS_T s) { a[get_global_id(0)] *= s; }
#else
__kernel void ks_not_taken(__global int *a) {}
#endif
#ifdef KS_EXTRA
kernel void ks_extra(global int *a) { a[0] = sizeof(KS_STR(x)); }
#endif
#ifndef KS_EXTRA
__kernel void ks_no_extra(__global int *a) {}
#endif
int ks_helper(int x);                      /* a prototype, not a kernel */
__kernel void ks_declared_only(__global int *a);
__kernel void ks_declared_only(__global int *a) { a[0] = ks_helper(1); }
int ks_helper(int x) { return x; }
typedef unsigned int ks_index;
__kernel void ks_typed(__global float4 *v, ks_index n, __local int *scratch, __constant float *c) {}
"""


def _compiler_names(device: sycl.device, source: str, options: list[str]) -> set[str]:
    ctx = cl.Context([device._native])
    prg = cl.Program(ctx, source).build(options)
    return set(prg.get_info(cl.program_info.KERNEL_NAMES).split(";"))


@pytest.mark.parametrize("options", [[], ["-DKS_EXTRA"], ["-D", "KS_EXTRA=1"]])
def test_kernel_names_match_the_compiler(device: sycl.device, options: list[str]) -> None:
    parsed = {k.name for k in parse_kernels(TRICKY, definitions_from_options(tuple(options)))}
    assert parsed == _compiler_names(device, TRICKY, options)
    assert "ks_scale_f32" in parsed and "ks_disabled" not in parsed
    assert ("ks_extra" in parsed) == bool(options)


def test_signatures_and_attributes() -> None:
    kernels = {k.name: k for k in parse_kernels(TRICKY, {})}
    scale = kernels["ks_scale_f32"]
    assert scale.reqd_work_group_size == (8, 1, 1)
    assert [(p.name, p.type_name, p.kind) for p in scale.params] == [
        ("a", "float", "global"), ("s", "float", "value"),
    ]
    typed = kernels["ks_typed"].params
    assert [(p.name, p.type_name, p.kind) for p in typed] == [
        ("v", "float4", "global"), ("n", "unsigned int", "value"),
        ("scratch", "int", "local"), ("c", "float", "constant"),
    ]
    assert str(typed[1].dtype_for(64)) == "uint32"
    assert kernels["ks_declared_only"].params[0].kind == "global"


def test_attributes_before_the_kernel_keyword() -> None:
    """KB-33: ``__attribute__((reqd_work_group_size(...)))`` may precede ``__kernel`` (OpenCL C
    6.11); the required size is read there too, and only for the kernel that follows."""
    source = """
    __attribute__((reqd_work_group_size(4294967295, 1, 1))) __kernel void ks_before(__global int *a) {}
    __kernel void ks_after_it(__global int *a) {}
    __attribute__((reqd_work_group_size(2, 2, 1)))
    kernel __attribute__((vec_type_hint(float4))) void ks_both(__global int *a) {}
    """
    sizes = {k.name: k.reqd_work_group_size for k in parse_kernels(source, {})}
    assert sizes == {"ks_before": (4294967295, 1, 1), "ks_after_it": None, "ks_both": (2, 2, 1)}


def test_required_sub_group_size() -> None:
    """KB-34: ``intel_reqd_sub_group_size(N)`` (cl_intel_required_subgroup_size) is read before
    or after ``__kernel``, with macros, beside a required work-group size."""
    source = """
    #define KS_SG 16
    __attribute__((intel_reqd_sub_group_size(8))) __kernel void ks_sg_before(__global int *a) {}
    __kernel __attribute__((__intel_reqd_sub_group_size__(KS_SG)))
    __attribute__((reqd_work_group_size(32, 1, 1))) void ks_sg_after(__global int *a) {}
    __kernel void ks_sg_none(__global int *a) {}
    """
    kernels = {k.name: k for k in parse_kernels(source, {})}
    assert {n: k.reqd_sub_group_size for n, k in kernels.items()} == {
        "ks_sg_before": 8, "ks_sg_after": 16, "ks_sg_none": None,
    }
    assert kernels["ks_sg_after"].reqd_work_group_size == (32, 1, 1)
    assert kernels["ks_sg_before"].reqd_work_group_size is None


def test_registration_uses_the_units_options() -> None:
    source = """
    __kernel void ks_opt_base(__global int *a) {}
    #ifdef KS_OPT_MORE
    __kernel void ks_opt_more(__global int *a) {}
    #endif
    """
    ids = sycl.register_kernel_source(source, options=["-DKS_OPT_MORE"])
    assert [k.get_name() for k in ids] == ["ks_opt_base", "ks_opt_more"]


def test_a_kernel_files_includes_are_found_only_through_its_options(tmp_path: Path) -> None:
    """docs/kernels.md: the file's own folder is not searched for its ``#include "..."``
    (errc.build naming the header); ``options=["-I<folder>"]`` finds it."""
    (tmp_path / "two.h").write_text("#define TWO 2\n")
    kernel = tmp_path / "twice.cl"
    kernel.write_text('#include "two.h"\n__kernel void inc_twice(__global int* a) { a[0] *= TWO; }\n')
    found = []
    for options in ([], [f"-I{tmp_path}"]):
        found.append(child_json(f"""
            import json, sycl_ocl as sycl
            from tests.conftest import preferred_device
            dev = preferred_device()
            ids = sycl.register_kernel_file({str(kernel)!r}, options={options!r})
            try:
                sycl.get_kernel_bundle(sycl.bundle_state.executable, sycl.context(dev), kernel_ids=ids)
                print(json.dumps("built"))
            except sycl.exception as e:
                print(json.dumps([e.code().name, "two.h" in e.what()]))
        """))
    assert found == [["build", True], "built"]
