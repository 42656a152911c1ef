"""``sycl::backend`` (SYCL 2020 §4.1): sycl_ocl has exactly one, OpenCL."""

from __future__ import annotations

import enum


class backend(enum.Enum):
    """The backends this implementation supports (§4.1)."""

    opencl = "opencl"
