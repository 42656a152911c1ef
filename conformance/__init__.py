"""The sycl_ocl conformance suite: SYCL 2020 checked on OpenCL drivers, category by category.

Run it with ``python -m conformance`` from a checkout, or ``sycl-ocl-conformance`` where
sycl_ocl is installed with its ``conformance`` extra (see README.md in this directory).
"""

from __future__ import annotations

import importlib.util
import sys


def console_main() -> int:
    """``sycl-ocl-conformance`` and ``python -m conformance``; returns the exit status."""
    if importlib.util.find_spec("pytest") is None:
        print(
            "The conformance suite runs its tests with pytest, which is not installed: "
            'pip install "sycl_ocl[conformance]"',
            file=sys.stderr,
        )
        return 2
    from .cli import main  # the runner imports pytest

    return main()
