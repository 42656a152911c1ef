"""``sycl::ext::oneapi``: oneAPI extensions."""

from . import experimental

__all__ = ["experimental"]
