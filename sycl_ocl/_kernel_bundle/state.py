"""``sycl::bundle_state`` (SYCL 2020 §4.11.4)."""

from __future__ import annotations

import enum
from typing import Any

from .._exception import errc, exception


class bundle_state(enum.Enum):
    """The three states of a kernel bundle (§4.11.4), in the order compile and link move through them.

    On OpenCL: ``input`` is a program created from source; ``object`` one compiled with
    ``clCompileProgram``; ``executable`` one linked (``clLinkProgram``) or built (``clBuildProgram``).
    """

    input = 0
    object = 1
    executable = 2

    @classmethod
    def _missing_(cls, value: Any) -> bundle_state:
        """``bundle_state(x)`` of anything but a state: ``errc.invalid`` (not Enum's ValueError)."""
        raise exception(
            errc.invalid,
            f"{value!r} is not a sycl.bundle_state; use sycl.bundle_state.executable, input or object",
        )
