"""``sycl::ext``: extensions of SYCL 2020 that sycl_ocl implements (``sycl.ext.oneapi.experimental``)."""

from . import oneapi

__all__ = ["oneapi"]
