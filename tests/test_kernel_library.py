"""The kernel library of ``kernels_cl/`` (item 1): every kernel on every device vs numpy.

Sizes are small (Oclgrind simulates every work-item) and deliberately not multiples of the
work-group size where a kernel supports that, so the bounds checks run too.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyopencl as cl
import pytest
from kernel_support import oclgrind_reports

import sycl_ocl as sycl
from sycl_ocl import library
from sycl_ocl.library import DTYPES, KERNELS_DIR, render

K = library.get_kernel_id


@pytest.fixture(autouse=True)
def _no_oclgrind_errors(request: pytest.FixtureRequest, capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """On Oclgrind, a kernel's invalid or uninitialised memory access (and, with
    ``OCLGRIND_DATA_RACES=1``, a data race) fails its test: Oclgrind reports them on stderr."""
    simulated = "device" in request.fixturenames and "Oclgrind" in str(request.getfixturevalue("device"))
    yield
    err = capfd.readouterr().err
    if simulated:
        problems = oclgrind_reports(err)
        assert not problems, "\n".join(problems[:5])


def _dtypes(template: str) -> list[str]:
    return list(DTYPES[template])


def _needs(q: sycl.queue, dtype: str) -> None:
    if dtype == "float64" and not q.get_device().has(sycl.aspect.fp64):
        pytest.skip("the device has no fp64")


def _buf(q: sycl.queue, host: np.ndarray) -> cl.Buffer:
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    return cl.Buffer(q.get_context()._native, flags, hostbuf=np.ascontiguousarray(host))


def _get(q: sycl.queue, buf: cl.Buffer, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    out = np.empty(shape, dtype)
    cl.enqueue_copy(q._native, out, buf)
    return out


def _data(n: int, dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-1, 1, n).astype(dtype)
    return rng.integers(0, 50, n).astype(dtype)


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def test_every_template_registers_for_its_dtypes() -> None:
    names = {k.get_name() for k in library.get_kernel_ids()}
    for template, dtypes in DTYPES.items():
        assert (KERNELS_DIR / template).is_file()
        for dtype in dtypes:
            assert any(n.endswith("_" + dtype) for n in names)
    assert "iota_uint32" in names


def test_templates_are_strict() -> None:
    """Templates render with strict_undefined: a missing variable is an error."""
    from mako.exceptions import MakoException
    from mako.lookup import TemplateLookup

    lookup = TemplateLookup(directories=[str(KERNELS_DIR)], strict_undefined=True)
    with pytest.raises((NameError, MakoException)):
        lookup.get_template("fill.cl.mako").render(T="float")
    assert "fill_float32(__global float *dst" in render("fill.cl.mako", "float32")


@pytest.mark.parametrize("dtype", _dtypes("fill.cl.mako"))
def test_fill_and_copy(queue: sycl.queue, dtype: str) -> None:
    _needs(queue, dtype)
    n = 37
    dst = _buf(queue, np.zeros(n, dtype))
    queue.parallel_for(sycl.range(n), K(f"fill_{dtype}"), dst, 7).wait()
    assert (_get(queue, dst, (n,), dtype) == 7).all()
    src = _data(n, dtype)
    queue.parallel_for(sycl.range(n), K(f"copy_{dtype}"), _buf(queue, src), dst).wait()
    np.testing.assert_array_equal(_get(queue, dst, (n,), dtype), src)


@pytest.mark.parametrize("dtype", _dtypes("axpy.cl.mako"))
def test_axpy_and_triad(queue: sycl.queue, dtype: str) -> None:
    _needs(queue, dtype)
    n = 41
    x, y, c = _data(n, dtype, 1), _data(n, dtype, 2), _data(n, dtype, 3)
    yb = _buf(queue, y)
    queue.parallel_for(sycl.range(n), K(f"axpy_{dtype}"), 3, _buf(queue, x), yb).wait()
    np.testing.assert_allclose(_get(queue, yb, (n,), dtype), 3 * x + y, rtol=1e-6)
    ab = _buf(queue, np.zeros(n, dtype))
    queue.parallel_for(sycl.range(n), K(f"triad_{dtype}"), ab, _buf(queue, x), _buf(queue, c), 2).wait()
    np.testing.assert_allclose(_get(queue, ab, (n,), dtype), x + 2 * c, rtol=1e-6)


@pytest.mark.parametrize("dtype", _dtypes("reduce.cl.mako"))
def test_reduction(queue: sycl.queue, dtype: str) -> None:
    _needs(queue, dtype)
    n, local, groups = 1000, 64, 4
    src = _data(n, dtype)
    item = np.dtype(dtype).itemsize
    partial, total = _buf(queue, np.zeros(groups, dtype)), _buf(queue, np.zeros(1, dtype))
    name = K(f"reduce_sum_{dtype}")
    queue.parallel_for(sycl.nd_range(sycl.range(groups * local), sycl.range(local)), name,
                       _buf(queue, src), partial, cl.LocalMemory(local * item), n)
    queue.parallel_for(sycl.nd_range(sycl.range(local), sycl.range(local)), name,
                       partial, total, cl.LocalMemory(local * item), groups).wait()
    exact = src.sum(dtype=np.float64 if np.dtype(dtype).kind == "f" else dtype)
    np.testing.assert_allclose(_get(queue, total, (1,), dtype)[0], exact, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", _dtypes("scan.cl.mako"))
def test_inclusive_scan(queue: sycl.queue, dtype: str) -> None:
    _needs(queue, dtype)
    n, local = 200, 32
    groups = _round_up(n, local) // local
    item = np.dtype(dtype).itemsize
    src = _data(n, dtype)
    dst, sums = _buf(queue, np.zeros(n, dtype)), _buf(queue, np.zeros(local, dtype))
    scanned = _buf(queue, np.zeros(local, dtype))
    whole = sycl.nd_range(sycl.range(groups * local), sycl.range(local))
    queue.parallel_for(whole, K(f"inclusive_scan_block_{dtype}"), _buf(queue, src), dst, sums,
                       cl.LocalMemory(local * item), n)
    one_block = sycl.nd_range(sycl.range(local), sycl.range(local))
    queue.parallel_for(one_block, K(f"inclusive_scan_block_{dtype}"), sums, scanned,
                       _buf(queue, np.zeros(1, dtype)), cl.LocalMemory(local * item), groups)
    queue.parallel_for(whole, K(f"scan_add_offsets_{dtype}"), dst, scanned, n).wait()
    expected = np.cumsum(src, dtype=np.float64 if np.dtype(dtype).kind == "f" else dtype)
    np.testing.assert_allclose(_get(queue, dst, (n,), dtype), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", _dtypes("transpose.cl.mako"))
def test_transpose(queue: sycl.queue, dtype: str) -> None:
    _needs(queue, dtype)
    rows, cols = 20, 35
    src = _data(rows * cols, dtype).reshape(rows, cols)
    dst = _buf(queue, np.zeros((cols, rows), dtype))
    rng = sycl.nd_range(sycl.range(_round_up(rows, 16), _round_up(cols, 16)), sycl.range(16, 16))
    queue.parallel_for(rng, K(f"transpose_{dtype}"), _buf(queue, src), dst, rows, cols).wait()
    np.testing.assert_array_equal(_get(queue, dst, (cols, rows), dtype), src.T)


@pytest.mark.parametrize("dtype", _dtypes("matmul.cl.mako"))
def test_tiled_matmul(queue: sycl.queue, dtype: str) -> None:
    _needs(queue, dtype)
    m, n, k = 18, 20, 33
    a = _data(m * k, dtype, 4).reshape(m, k)
    b = _data(k * n, dtype, 5).reshape(k, n)
    c = _buf(queue, np.zeros((m, n), dtype))
    rng = sycl.nd_range(sycl.range(_round_up(m, 16), _round_up(n, 16)), sycl.range(16, 16))
    queue.parallel_for(rng, K(f"matmul_{dtype}"), _buf(queue, a), _buf(queue, b), c, m, n, k).wait()
    np.testing.assert_allclose(_get(queue, c, (m, n), dtype), a @ b, rtol=1e-4, atol=1e-4)


def test_iota(queue: sycl.queue) -> None:
    out = _buf(queue, np.zeros(10, np.uint32))
    queue.parallel_for(sycl.range(10), K("iota_uint32"), out, 5).wait()
    assert _get(queue, out, (10,), "uint32").tolist() == list(range(5, 15))


def test_library_has_no_data_races_under_oclgrind() -> None:
    """The library tests again on Oclgrind with its data-race detector on (in a child: the
    detector is chosen when the driver loads)."""
    from kernel_support import ROOT, run_child

    done = run_child(
        f"import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', "
        f"{str(ROOT / 'tests' / 'test_kernel_library.py')!r}, '-k', 'Oclgrind and not data_races']))",
        env={"OCLGRIND_DATA_RACES": "1", "SYCL_OCL_TEST": "Oclgrind"},
    )
    if "no tests ran" in done.stdout or done.returncode == 5:
        pytest.skip("Oclgrind is not installed")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


def test_the_library_takes_no_names_from_the_application(queue: sycl.queue) -> None:
    """The shipped kernels are not application kernels: an application kernel may take a
    library name, get_kernel_ids() and get_kernel_bundle(state, ctx) hold the application's
    kernels only, and each library kernel stays one call away (library.get_kernel_id)."""
    mine = sycl.register_kernel_source(
        "__kernel void copy_float32(__global float *a) { a[get_global_id(0)] = 42; }"
    )
    assert sycl.get_kernel_id("copy_float32") is mine[0]
    shipped = set(library.get_kernel_ids())
    assert mine[0] not in shipped and not shipped & set(sycl.get_kernel_ids())
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context())
    assert mine[0] in bundle.get_kernel_ids() and not shipped & set(bundle.get_kernel_ids())
    a = _buf(queue, np.zeros(4, np.float32))
    queue.parallel_for(sycl.range(4), "copy_float32", a).wait()
    assert (_get(queue, a, (4,), "float32") == 42).all()
    b = _buf(queue, np.zeros(4, np.float32))
    queue.parallel_for(sycl.range(4), K("copy_float32"), a, b).wait()  # the library's copy(src, dst)
    assert (_get(queue, b, (4,), "float32") == 42).all()
