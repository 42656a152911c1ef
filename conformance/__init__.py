"""The sycl_ocl conformance suite: SYCL 2020 checked on OpenCL drivers, category by category.

Run it with ``python -m conformance`` (see README.md in this directory).
"""
