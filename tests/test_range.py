"""``range``, ``id`` and ``nd_range`` (SYCL 2020 §4.9.1, by-value semantics §4.5.3)."""

from __future__ import annotations

import pytest

import sycl_ocl as sycl


def test_range_value_semantics() -> None:
    assert sycl.range(2, 3) == sycl.range(2, 3)
    assert hash(sycl.range(2, 3)) == hash(sycl.range(2, 3))
    assert sycl.range(2, 3) != sycl.range(3, 2)
    assert sycl.id(1, 0) != sycl.id(0, 1)
    assert sycl.range(4) != sycl.id(4)  # different classes never compare equal
    assert len({sycl.range(1, 2), sycl.range(1, 2)}) == 1


def test_range_accessors_and_size() -> None:
    r = sycl.range(2, 3, 4)
    assert r.dimensions == 3
    assert (r[0], r.get(1), r[2]) == (2, 3, 4)
    assert list(r) == [2, 3, 4]
    assert r.size() == 24
    assert sycl.range([5, 6]) == sycl.range(5, 6)


def test_opencl_order_is_reversed() -> None:
    assert sycl.range(2, 3, 4).to_cl() == (4, 3, 2)
    assert sycl.id(7, 1).to_cl() == (1, 7)
    assert sycl.range(9).to_cl() == (9,)


@pytest.mark.parametrize("dims", [(), (1, 2, 3, 4)])
def test_range_dimension_count_is_checked(dims: tuple[int, ...]) -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.range(*dims)
    assert info.value.code() is sycl.errc.invalid


def test_range_rejects_negative_and_non_integer_sizes() -> None:
    for bad in ((-1,), (1.5,), ("a",)):
        with pytest.raises(sycl.exception) as info:
            sycl.range(*bad)
        assert info.value.code() is sycl.errc.invalid


def test_nd_range_groups_and_equality() -> None:
    nd = sycl.nd_range(sycl.range(8, 6), sycl.range(4, 3))
    assert nd.get_group_range() == sycl.range(2, 2)
    assert nd.get_global_range() == sycl.range(8, 6)
    assert nd.get_local_range() == sycl.range(4, 3)
    assert nd.get_offset() == sycl.id(0, 0)
    assert nd == sycl.nd_range((8, 6), (4, 3))
    assert nd != sycl.nd_range((8, 6), (4, 3), offset=(1, 0))


def test_nd_range_local_must_divide_global() -> None:
    for glob, loc in (((8,), (3,)), ((8,), (0,)), ((8, 8), (4,))):
        with pytest.raises(sycl.exception) as info:
            sycl.nd_range(glob, loc)
        assert info.value.code() is sycl.errc.nd_range
