"""Unified shared memory on OpenCL SVM (SYCL 2020 §4.8): the ``sycl.usm`` namespace."""

from .kinds import alloc

__all__ = ["alloc"]
