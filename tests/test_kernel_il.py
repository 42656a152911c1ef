"""Kernels from SPIR-V (``sycl.register_kernel_il``; SYCL 2020 §4.11.1, §4.11.6, §4.11.9).

``data/il_kernels.spv`` is ``data/il_kernels.cl`` built by ``tools/build_spirv.sh`` (Debian's
clang-15 and llvm-spirv-15). Neither PoCL 3.1 nor Oclgrind takes SPIR-V: on them the module's
kernels are incompatible and leave every other kernel alone. The launches run in a child that
sees only Intel's CPU runtime (``pip install intel-opencl-rt intel-cmplr-lib-rt``), which does.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from kernel_support import child_json, intel_cpu_runtime_env

import sycl_ocl as sycl
from sycl_ocl._kernel_bundle._spirv import read_module
from sycl_ocl._kernel_bundle.compat import accepts_il

DATA = Path(__file__).parent / "data"
REPOSITORY = Path(__file__).parent.parent
IL = (DATA / "il_kernels.spv").read_bytes()
# il_axpy's n is a uint, which the module types as a signless i32; the other kernels keep the
# module's own types.
ARG_TYPES = {"il_axpy": ["global float *y", "global const float *x", "float a", "uint n"]}


@pytest.fixture(scope="module")
def il_ids() -> list[sycl.kernel_id]:
    return sycl.register_kernel_il(IL, ARG_TYPES)


def test_module_kernels_and_types_are_read_from_the_module() -> None:
    module = read_module(IL)
    assert list(module) == ["il_axpy", "il_offset", "il_scale", "il_group_sum"]
    axpy, _ = module["il_axpy"]
    assert [p.declaration() for p in axpy.params] == [
        "__global float *y", "__global float *x", "float a", "i32 n"]
    group_sum, _ = module["il_group_sum"]
    assert group_sum.reqd_work_group_size == (4, 1, 1)
    assert [p.kind for p in group_sum.params] == ["global", "global", "local"]
    assert read_module(IL[:4] + IL[4:])  # bytes, not a file: any copy reads alike


def test_registration_gives_ids_by_name_and_is_idempotent(il_ids: list[sycl.kernel_id]) -> None:
    assert [k.get_name() for k in il_ids] == ["il_axpy", "il_offset", "il_scale", "il_group_sum"]
    assert sycl.register_kernel_il(bytearray(IL), ARG_TYPES) == il_ids
    assert sycl.get_kernel_id("il_offset") == il_ids[1]


def test_the_same_module_with_other_types_clashes(il_ids: list[sycl.kernel_id]) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.register_kernel_il(IL)
    assert info.value.code() is sycl.errc.invalid
    assert "already registered" in str(info.value)


@pytest.mark.parametrize("il, why", [
    (b"__kernel void k(__global int *a) {}", "not the SPIR-V magic number"),
    (IL[:17], "not a whole number of 32-bit words"),
    (IL[:20] + b"\0\0\0\0", "word count of 0"),
    (IL[:20] + struct.pack("<2I", 2 << 16 | 15, 6), "lacks operands"),  # OpEntryPoint Kernel, no more
    (IL[:20], "has no kernel"),
])
def test_bytes_that_are_no_module_are_invalid(il: bytes, why: str) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.register_kernel_il(il)
    assert info.value.code() is sycl.errc.invalid
    assert why in str(info.value)


def test_a_string_is_invalid() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.register_kernel_il("__kernel void k() {}")  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid
    assert "bytes, got str" in str(info.value)


@pytest.mark.parametrize("arg_types, why", [
    (["global float *y"], "maps kernel names"),
    ({"il_nothing": ["int a"]}, "names kernel(s) ['il_nothing'] that the module lacks"),
    ({"il_offset": [3, 4]}, "lists OpenCL C declarations"),
    ({"il_offset": ["global int *out"]}, "declares 1 parameter(s)"),
    ({"il_offset": "int out, int delta"},
     "parameter 0 as (int out), but the module types it (__global i32 *out)"),
    ({"il_offset": "global int *out, long delta"}, "parameter 1 as (long delta)"),
])
def test_arg_types_that_do_not_fit_the_module_are_invalid(arg_types: object, why: str) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.register_kernel_il(IL, arg_types)  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid
    assert why in str(info.value)


def test_a_device_without_spirv_leaves_the_module_out(
    il_ids: list[sycl.kernel_id], queue: sycl.queue
) -> None:
    dev = queue.get_device()
    if accepts_il(dev):
        pytest.skip(f"{dev!r} takes SPIR-V; the launches are tested under Intel's runtime")
    ctx = queue.get_context()
    assert not sycl.is_compatible(il_ids, dev)
    # Every other kernel's bundle is still built; the module's kernels are not in it.
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx)
    assert not any(bundle.has_kernel(k) for k in il_ids)
    with pytest.raises(sycl.exception) as info:
        sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, [dev], il_ids[:1])
    assert info.value.code() is sycl.errc.invalid
    out = np.zeros(4, np.int32)
    with sycl.buffer(out) as buf, pytest.raises(sycl.exception) as info:
        queue.submit(lambda h: h.parallel_for(4, "il_offset", sycl.accessor(buf, h), np.int32(1)))
    assert info.value.code() is sycl.errc.kernel_not_supported
    assert "takes no SPIR-V" in str(info.value)


def test_the_committed_module_is_what_its_source_builds(tmp_path: Path) -> None:
    missing = [tool for tool in ("clang-15", "llvm-spirv-15") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"rebuilding the module needs {missing} (apt-get install clang-15 llvm-spirv-15)")
    built = tmp_path / "il_kernels.spv"
    subprocess.run(
        ["bash", str(REPOSITORY / "tools" / "build_spirv.sh"), str(DATA / "il_kernels.cl"), str(built)],
        check=True, timeout=120,
    )
    assert built.read_bytes() == IL, "rebuild with tools/build_spirv.sh and commit data/il_kernels.spv"


N = 16


def test_spirv_kernels_run_on_intels_runtime(tmp_path: Path) -> None:
    """Launch by name and through bundles, Python scalars converted as declared, the module's
    required work-group size and parameter count checked."""
    env = intel_cpu_runtime_env(tmp_path)
    if env is None:
        pytest.skip("needs Intel's CPU OpenCL runtime in this environment "
                    "(pip install intel-opencl-rt intel-cmplr-lib-rt)")
    outcome = child_json(f"""
        import json
        import numpy as np
        import sycl_ocl as sycl

        ids = sycl.register_kernel_il(open({str(DATA / "il_kernels.spv")!r}, "rb").read(), {ARG_TYPES!r})
        q = sycl.queue(sycl.device(sycl.cpu_selector_v))
        result = {{"compatible": sycl.is_compatible(ids, q.get_device())}}

        def code_of(launch):
            try:
                launch()
            except sycl.exception as e:
                return [e.code().name, str(e)]
            return None

        y = np.ones({N}, np.float32)
        x = np.arange({N}, dtype=np.float32)
        with sycl.buffer(y) as yb, sycl.buffer(x) as xb:
            q.submit(lambda h: h.parallel_for({N}, "il_axpy", sycl.accessor(yb, h),
                                              sycl.accessor(xb, h, sycl.read_only), 2.0, {N} - 3))
        result["axpy"] = y.tolist()

        out = np.zeros({N}, np.int32)
        with sycl.buffer(out) as ob:
            q.submit(lambda h: h.parallel_for({N}, "il_offset", sycl.accessor(ob, h), np.int32(-5)))
            result["python_int"] = code_of(lambda: q.submit(
                lambda h: h.parallel_for({N}, "il_offset", sycl.accessor(ob, h), 5)))
            result["count"] = code_of(lambda: q.submit(
                lambda h: h.parallel_for({N}, "il_offset", sycl.accessor(ob, h))))
        result["offset"] = out.tolist()

        # No declared types: the float converts, the signless integer takes a numpy scalar.
        a = np.ones({N}, np.float32)
        with sycl.buffer(a) as ab:
            q.submit(lambda h: h.parallel_for({N}, "il_scale", sycl.accessor(ab, h), 3.0, np.int32(4)))
        result["scale"] = a.tolist()

        # Through bundles: input -> object -> executable (clCompileProgram + clLinkProgram of IL).
        ctx = q.get_context()
        inp = sycl.get_kernel_bundle(sycl.bundle_state.input, ctx, [q.get_device()], ids[3:])
        exe = sycl.link(sycl.compile(inp))
        sums = np.zeros(2, np.float32)
        with sycl.buffer(x) as xb, sycl.buffer(sums) as sb:
            def group_sum(h, local):
                h.use_kernel_bundle(exe)
                h.parallel_for(sycl.nd_range(sycl.range(8), sycl.range(local)), "il_group_sum",
                               sycl.accessor(xb, h, sycl.read_only), sycl.accessor(sb, h),
                               sycl.local_accessor(np.float32, sycl.range(4), h))
            q.submit(lambda h: group_sum(h, 4))
            result["wrong_group"] = code_of(lambda: q.submit(lambda h: group_sum(h, 2)))
        result["sums"] = sums.tolist()
        print(json.dumps(result))
    """, env)
    assert outcome["compatible"]
    expected = np.ones(N, np.float32)
    expected[:N - 3] += 2 * np.arange(N - 3, dtype=np.float32)
    np.testing.assert_array_equal(outcome["axpy"], expected)
    assert outcome["offset"] == [-5] * N
    assert outcome["scale"] == [3.0] * 4 + [1.0] * (N - 4)
    assert outcome["python_int"][0] == "kernel_argument"
    assert "register_kernel_il's arg_types" in outcome["python_int"][1]
    assert outcome["count"][0] == "kernel_argument"
    assert outcome["wrong_group"][0] == "nd_range"
    assert outcome["sums"] == [6.0, 22.0]
