"""Category property (CTS tests/property): PR-01 .. PR-03."""

from __future__ import annotations

import threading

import pytest

import sycl_ocl as sycl


def test_PR_01_is_property_of() -> None:
    """Property classes know the SYCL classes they apply to."""
    p = sycl.property
    for cls in (p.queue.enable_profiling, p.queue.in_order):
        assert p.is_property(cls) and p.is_property_of(cls, sycl.queue)
    for cls in (p.buffer.use_host_ptr, p.buffer.use_mutex, p.buffer.context_bound):
        assert p.is_property_of(cls, "buffer") and not p.is_property_of(cls, sycl.queue)
    assert p.is_property_of(p.no_init, "accessor") and p.is_property_of(p.no_init, "host_accessor")
    assert not p.is_property(int)


def test_PR_02_get_absent_property_is_invalid(queue: sycl.queue) -> None:
    """get_property of an absent property raises errc.invalid."""
    with pytest.raises(sycl.exception) as info:
        queue.get_property(sycl.property.queue.in_order)
    assert info.value.code() is sycl.errc.invalid


def test_PR_03_property_list(device: sycl.device) -> None:
    """property_list has/get, and properties keep their arguments."""
    lock = threading.Lock()
    ctx = sycl.context(device)
    props = sycl.property_list(sycl.property.buffer.use_mutex(lock), sycl.property.buffer.context_bound(ctx))
    assert props.has_property(sycl.property.buffer.use_mutex)
    assert props.get_property(sycl.property.buffer.use_mutex).get_mutex_ptr() is lock
    assert props.get_property(sycl.property.buffer.context_bound).get_context() == ctx
    with pytest.raises(sycl.exception) as info:
        sycl.property_list(42)  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid
