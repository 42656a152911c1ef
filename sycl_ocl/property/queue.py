"""``sycl::property::queue`` (SYCL 2020 §4.6.5.3)."""

from __future__ import annotations

from ._base import Property


class in_order(Property):
    """Commands of the queue run in submission order (§4.6.5.3)."""

    __slots__ = ()
    applies_to = frozenset({"queue"})


class enable_profiling(Property):
    """Commands of the queue record profiling timestamps (§4.6.5.3)."""

    __slots__ = ()
    applies_to = frozenset({"queue"})


class no_range_rounding(Property):
    """``parallel_for`` over a ``range`` leaves the work-group size to the OpenCL driver, as a
    plain OpenCL launch without a local size does (a sycl_ocl property; docs/kernels.md
    "Launch shape of range kernels"). Without it, sycl_ocl chooses it (§4.9.4.2 leaves it to
    the implementation); the environment variable ``SYCL_OCL_RANGE_ROUNDING=0`` turns that off
    for every queue made afterwards."""

    __slots__ = ()
    applies_to = frozenset({"queue"})
