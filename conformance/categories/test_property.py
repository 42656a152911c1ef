"""Category property (CTS tests/property): PR-01 .. PR-03."""

from __future__ import annotations

import threading

import numpy as np

import sycl_ocl as sycl
from conformance.support import raises


def test_PR_01_is_property_of(device: sycl.device) -> None:
    """Property classes know the SYCL classes they apply to; the wrong kind is refused."""
    p = sycl.property
    for cls in (p.queue.enable_profiling, p.queue.in_order):
        assert p.is_property(cls) and sycl.is_property_of(cls, sycl.queue)
        assert not sycl.is_property_of(cls, sycl.buffer)
    for cls in (p.buffer.use_host_ptr, p.buffer.use_mutex, p.buffer.context_bound):
        assert sycl.is_property_of(cls, sycl.buffer) and not sycl.is_property_of(cls, sycl.queue)
    assert sycl.is_property_of(p.no_init, sycl.accessor) and sycl.is_property_of(
        p.no_init, sycl.host_accessor
    )
    assert not sycl.is_property(int) and not sycl.is_property(p.queue.in_order())
    with raises(sycl.errc.invalid):
        sycl.queue(device, prop_list=[p.buffer.use_host_ptr()])
    with raises(sycl.errc.invalid):
        sycl.buffer(np.zeros(4, np.int32), prop_list=[p.queue.in_order()])


def test_PR_02_get_absent_property_is_invalid(device: sycl.device) -> None:
    """get_property of an absent property raises errc.invalid (queue, buffer, context)."""
    with raises(sycl.errc.invalid):
        sycl.queue(device).get_property(sycl.property.queue.in_order)
    with raises(sycl.errc.invalid):
        sycl.buffer(np.zeros(4, np.int32)).get_property(sycl.property.buffer.use_host_ptr)
    assert not sycl.context(device).has_property(sycl.property.queue.in_order)


def test_PR_03_property_list(device: sycl.device) -> None:
    """property_list has/get, and properties keep their arguments."""
    lock = threading.Lock()
    ctx = sycl.context(device)
    props = sycl.property_list(sycl.property.buffer.use_mutex(lock), sycl.property.buffer.context_bound(ctx))
    assert props.has_property(sycl.property.buffer.use_mutex)
    assert not props.has_property(sycl.property.buffer.use_host_ptr)
    assert props.get_property(sycl.property.buffer.use_mutex).get_mutex_ptr() is lock
    assert props.get_property(sycl.property.buffer.context_bound).get_context() == ctx
    with raises(sycl.errc.invalid):
        props.get_property(sycl.property.buffer.use_host_ptr)
    with raises(sycl.errc.invalid):
        sycl.property_list(42)  # type: ignore[arg-type]
    q = sycl.queue(device, prop_list=sycl.property_list(sycl.property.queue.in_order()))
    assert q.has_property(sycl.property.queue.in_order)
