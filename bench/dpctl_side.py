"""dpctl (Intel's SYCL runtime in C++, ``pip install dpctl``) as a compared system, where installed.

dpctl builds OpenCL C (``dpctl.program.create_program_from_source``) and runs kernels whose
arguments are scalars (ctypes values); its USM does not work on PoCL 3.1, so it joins only the
scalar-argument benchmarks. It is never a dependency: without it those systems are skipped.
"""

from __future__ import annotations

from typing import Any

from .harness import KERNELS, Env, Unavailable


def queue_and_program(env: Env) -> tuple[Any, Any]:
    """An in-order dpctl queue on the device under test, and :data:`KERNELS` built for it."""
    try:
        import dpctl
        import dpctl.program
    except ImportError as error:
        raise Unavailable(f"dpctl is not installed ({error})") from error
    name = env.device._native.name
    matches = [d for d in dpctl.get_devices() if d.name == name]
    if not matches:
        raise Unavailable(f"dpctl does not list {name!r}")
    queue = dpctl.SyclQueue(matches[0], property="in_order")
    return queue, dpctl.program.create_program_from_source(queue, KERNELS)
