"""Errors (SYCL 2020 §4.13): ``exception``, ``errc``, ``exception_list`` and the one place
(``sycl_ocl._native``) where OpenCL errors become ``sycl.exception``, tested with real errors."""

from __future__ import annotations

import pickle

import pyopencl as cl
import pytest

import sycl_ocl as sycl
from sycl_ocl import _native

SPEC_ERRC = [
    "success", "runtime", "kernel", "accessor", "nd_range", "event", "kernel_argument", "build",
    "invalid", "memory_allocation", "platform", "profiling", "feature_not_supported",
    "kernel_not_supported", "backend_mismatch",
]  # fmt: skip


def test_errc_has_the_spec_codes_with_unique_values() -> None:
    assert [e.name for e in sycl.errc] == SPEC_ERRC
    assert len({e.value for e in sycl.errc}) == len(SPEC_ERRC)


def test_exception_interface(device: sycl.device) -> None:
    ctx = sycl.context(device)
    error = sycl.exception(sycl.errc.kernel, "it broke", ctx)
    assert isinstance(error, Exception)
    assert error.code() is sycl.errc.kernel
    assert error.what() == "it broke"
    assert error.category() == "sycl"
    assert error.has_context() and error.get_context() == ctx
    assert str(error) == "[kernel] it broke"
    bare = sycl.exception(sycl.errc.runtime)
    assert not bare.has_context() and bare.what() == ""
    with pytest.raises(sycl.exception) as info:
        bare.get_context()
    assert info.value.code() is sycl.errc.invalid


def test_exception_pickles_with_its_code() -> None:
    error = pickle.loads(pickle.dumps(sycl.exception(sycl.errc.build, "log", cl_code=-11)))
    assert (error.code(), error.what(), error.cl_code) == (sycl.errc.build, "log", -11)


def test_exception_list() -> None:
    errors = [sycl.exception(sycl.errc.runtime, "a"), sycl.exception(sycl.errc.kernel, "b")]
    lst = sycl.exception_list(errors)
    assert lst.size() == len(lst) == 2
    assert list(lst) == errors and lst[1] is errors[1]
    assert sycl.exception_list().size() == 0


def test_a_real_opencl_error_keeps_its_name(device: sycl.device) -> None:
    ctx = sycl.get_native(sycl.context(device))
    with pytest.raises(sycl.exception) as info:
        _native.cl_call("creating a buffer", cl.Buffer, ctx, cl.mem_flags.READ_WRITE, 0)
    assert "creating a buffer failed: CL_INVALID_BUFFER_SIZE" in info.value.what()
    assert info.value.cl_code == cl.status_code.INVALID_BUFFER_SIZE
    assert isinstance(info.value.__cause__, cl.Error)


def test_a_bad_work_group_size_is_an_nd_range_error(device: sycl.device) -> None:
    ctx = sycl.context(device)
    queue = cl.CommandQueue(sycl.get_native(ctx))
    kernel = cl.Program(sycl.get_native(ctx), "__kernel void k(__global int *a) { a[0] = 1; }").build().k
    buf = cl.Buffer(sycl.get_native(ctx), cl.mem_flags.READ_WRITE, 4)
    too_big = device.get_info(sycl.info.device.max_work_group_size) * 2
    with pytest.raises(sycl.exception) as info, _native.cl_errors("launching k", sycl_ctx := ctx):
        kernel(queue, (too_big,), (too_big,), buf)
    assert info.value.code() is sycl.errc.nd_range
    # OpenCL allows either name when the local size exceeds both limits
    assert any(f"CL_INVALID_WORK_{w}_SIZE" in info.value.what() for w in ("GROUP", "ITEM"))
    assert info.value.get_context() == sycl_ctx


def test_a_build_failure_is_a_build_error(device: sycl.device) -> None:
    program = cl.Program(sycl.get_native(sycl.context(device)), "__kernel void k( { syntax error")
    with pytest.raises(sycl.exception) as info:
        _native.cl_call("building k", program.build)
    assert info.value.code() is sycl.errc.build
    assert "CL_BUILD_PROGRAM_FAILURE" in info.value.what()


def test_every_opencl_status_maps_to_an_errc() -> None:
    for name, code in vars(cl.status_code).items():
        if not (name.isupper() and isinstance(code, int)) or code == 0:
            continue
        assert _native.status_name(code) == f"CL_{name}"
        expected_invalid = name.startswith("INVALID") and name not in _native._ERRC_BY_STATUS
        assert isinstance(_native.errc_for_status(code), sycl.errc)
        if expected_invalid:
            assert _native.errc_for_status(code) is sycl.errc.invalid
    assert _native.errc_for_status(cl.status_code.OUT_OF_RESOURCES) is sycl.errc.memory_allocation
    assert _native.errc_for_status(cl.status_code.PROFILING_INFO_NOT_AVAILABLE) is sycl.errc.profiling
    assert _native.status_name(-12345) == "OpenCL status -12345"


def test_translate_adds_detail_such_as_a_build_log(device: sycl.device) -> None:
    program = cl.Program(sycl.get_native(sycl.context(device)), "__kernel void k() { undeclared = 1; }")
    with pytest.raises(cl.Error) as raw:
        program.build()
    translated = _native.translate(raw.value, "building k", detail="the build log")
    assert translated.code() is sycl.errc.build
    assert translated.what().startswith("building k failed: CL_BUILD_PROGRAM_FAILURE")
    assert translated.what().endswith("\nthe build log")
