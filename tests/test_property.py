"""Properties (SYCL 2020 §4.5.4, properties.txt): property_list, has/get_property, traits."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import sycl_ocl as sycl

Q = sycl.property.queue
B = sycl.property.buffer


def test_property_list_holds_one_of_each_class() -> None:
    props = sycl.property_list(Q.in_order(), Q.enable_profiling(), Q.in_order())
    assert len(props) == 2
    assert props.has_property(Q.in_order) and props.has_property(Q.enable_profiling)
    assert not props.has_property(B.use_host_ptr)
    assert len(sycl.property_list()) == 0


def test_property_list_of_a_list_as_cpp_braces_read() -> None:
    """``property_list([p1, p2])`` (C++'s ``property_list{p1, p2}``) holds p1 and p2."""
    for props in (sycl.property_list([Q.in_order(), Q.enable_profiling()]),
                  sycl.property_list((Q.in_order(), Q.enable_profiling()))):
        assert len(props) == 2 and props.has_property(Q.in_order) and props.has_property(Q.enable_profiling)
    assert len(sycl.property_list([])) == 0
    with pytest.raises(sycl.exception) as info:
        sycl.property_list([Q.in_order(), 42])  # type: ignore[list-item]
    assert info.value.code() is sycl.errc.invalid


@pytest.mark.parametrize("bad", [42, Q.in_order, "in_order", [[Q.in_order()]]])
def test_property_list_takes_only_property_instances(bad: object) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.property_list(bad)  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid


def test_queue_properties_round_trip(device: sycl.device) -> None:
    for form in (
        sycl.property_list(Q.in_order(), Q.enable_profiling()),
        [Q.in_order(), Q.enable_profiling()],
        (Q.in_order(), Q.enable_profiling()),
    ):
        q = sycl.queue(device, prop_list=form)
        assert isinstance(q.get_property(Q.in_order), Q.in_order)
        assert isinstance(q.get_property(Q.enable_profiling), Q.enable_profiling)
        assert q.is_in_order()
    q = sycl.queue(device, prop_list=Q.in_order())
    assert q.has_property(Q.in_order) and not q.has_property(Q.enable_profiling)


def test_has_property_never_raises(device: sycl.device) -> None:
    q = sycl.queue(device)
    assert not q.has_property(B.use_host_ptr)  # not even a queue property
    assert not q.has_property([1])  # type: ignore[arg-type]
    assert not sycl.context(device).has_property(Q.in_order)


def test_get_property_of_an_absent_property_is_invalid(device: sycl.device) -> None:
    for obj, cls in ((sycl.queue(device), Q.in_order), (sycl.context(device), Q.enable_profiling)):
        with pytest.raises(sycl.exception) as info:
            obj.get_property(cls)
        assert info.value.code() is sycl.errc.invalid
        assert "has_property" in info.value.what()


def test_a_property_of_another_class_is_rejected(device: sycl.device) -> None:
    for make in (
        lambda: sycl.queue(device, prop_list=[B.use_host_ptr()]),
        lambda: sycl.queue(device, prop_list=[sycl.property.no_init()]),
        lambda: sycl.context(device, prop_list=[Q.enable_profiling()]),
        lambda: sycl.queue(device, prop_list=5),
    ):
        with pytest.raises(sycl.exception) as info:
            make()
        assert info.value.code() is sycl.errc.invalid


def test_buffer_properties_carry_their_arguments(device: sycl.device) -> None:
    lock = threading.Lock()
    ctx = sycl.context(device)
    props = sycl.property_list(B.use_host_ptr(), B.use_mutex(lock), B.context_bound(ctx))
    assert props.get_property(B.use_mutex).get_mutex_ptr() is lock
    assert props.get_property(B.context_bound).get_context() == ctx
    assert B.context_bound(ctx) == B.context_bound(ctx)
    assert B.use_mutex(lock) != B.use_mutex(threading.Lock())
    assert B.use_host_ptr() == B.use_host_ptr()


def test_property_traits() -> None:
    assert sycl.is_property(Q.in_order) and sycl.is_property(B.use_host_ptr)
    assert not sycl.is_property(sycl.property.Property)  # the base is no property
    assert not sycl.is_property(Q.in_order())  # an instance, not the class
    assert not sycl.is_property(int)
    assert sycl.is_property_of(B.use_host_ptr, "buffer")
    assert not sycl.is_property_of(B.use_host_ptr, sycl.queue)
    assert sycl.is_property_of(Q.in_order, sycl.queue)
    assert sycl.is_property_of(sycl.property.no_init, "accessor")
    assert not sycl.is_property_of(Q.in_order, sycl.context)


def test_property_reprs_name_the_spec_class() -> None:
    assert repr(Q.in_order()) == "sycl.property.queue.in_order()"
    expected = "sycl.property_list(sycl.property.buffer.use_host_ptr())"
    assert repr(sycl.property_list(B.use_host_ptr())) == expected


def test_the_spec_buffer_properties_example(device: sycl.device) -> None:
    """§4.5.4's example: three buffers, no properties / use_host_ptr / context_bound."""
    ctx = sycl.context(device)
    host = np.zeros(4, dtype=np.int32)
    buffers = [
        sycl.buffer(sycl.range(4), np.int32),
        sycl.buffer(host, prop_list=sycl.property_list(B.use_host_ptr())),
        sycl.buffer(sycl.range(4), np.int32, prop_list=[B.context_bound(ctx)]),
    ]
    assert [b.has_property(B.context_bound) for b in buffers] == [False, False, True]
    assert buffers[2].get_property(B.context_bound).get_context() == ctx
    assert buffers[1].has_property(B.use_host_ptr) and not buffers[1].has_property(B.use_mutex)
    assert type(buffers[0]) is type(buffers[2])  # properties do not change the type
    with pytest.raises(sycl.exception) as info:
        buffers[0].get_property(B.use_host_ptr)
    assert info.value.code() is sycl.errc.invalid
    with pytest.raises(sycl.exception) as info:
        sycl.buffer(sycl.range(4), np.int32, prop_list=[Q.in_order()])
    assert info.value.code() is sycl.errc.invalid
