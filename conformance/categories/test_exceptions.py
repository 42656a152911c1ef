"""Category exceptions (CTS tests/exceptions, exception_handling, error): EX-01 .. EX-13."""

from __future__ import annotations

import pytest

import sycl_ocl as sycl
from conformance.support import raises

ERRC_NAMES = [
    "success",
    "runtime",
    "kernel",
    "accessor",
    "nd_range",
    "event",
    "kernel_argument",
    "build",
    "invalid",
    "memory_allocation",
    "platform",
    "profiling",
    "feature_not_supported",
    "kernel_not_supported",
    "backend_mismatch",
]


class _Collector:
    """An async handler that is an object with __call__."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, errors: sycl.exception_list) -> None:
        self.calls.append(len(errors))


def _fail() -> None:
    raise sycl.exception(sycl.errc.kernel, "host task failed on purpose")


@pytest.mark.scenarios("EX-11")
def test_EX_01_any_callable_is_an_async_handler(device: sycl.device) -> None:
    """A function, a lambda and a callable object all receive errors, and nothing on success."""
    got: list[int] = []

    def function(errors: sycl.exception_list) -> None:
        got.append(len(errors))

    obj = _Collector()
    for handler in (function, lambda errors: got.append(len(errors)), obj):
        q = sycl.queue(device, async_handler=handler)
        q.submit(lambda h: h.host_task(lambda: None))
        q.wait_and_throw()  # success: not called
        q.submit(lambda h: h.host_task(_fail))
        q.wait_and_throw()
    assert got == [1, 1] and obj.calls == [1]


def test_EX_04_exception_list() -> None:
    """A default exception_list is empty; a filled one has a size, iterates twice, indexes."""
    errors = sycl.exception_list()
    assert len(errors) == 0 and errors.size() == 0 and list(errors) == []
    items = [sycl.exception(sycl.errc.runtime, "a"), sycl.exception(sycl.errc.event, "b")]
    full = sycl.exception_list(items)
    assert full.size() == 2 and list(full) == items and list(full) == items
    assert full[1] is items[1]


def test_EX_06_exception_is_an_exception(device: sycl.device) -> None:
    """sycl.exception derives from Exception and carries code, message and context."""
    error = sycl.exception(sycl.errc.invalid, "message")
    assert isinstance(error, Exception)
    assert error.code() is sycl.errc.invalid and error.what() == "message"
    assert not error.has_context()
    with raises(sycl.errc.invalid):
        error.get_context()
    ctx = sycl.context(device)
    with_ctx = sycl.exception(sycl.errc.runtime, "m", ctx)
    assert with_ctx.has_context() and with_ctx.get_context() == ctx


def test_EX_07_errc_values_unique() -> None:
    """errc has the 15 spec members with distinct values."""
    assert [e.name for e in sycl.errc] == ERRC_NAMES
    assert len({e.value for e in sycl.errc}) == len(ERRC_NAMES)


def test_EX_09_sycl_category() -> None:
    """Every exception, whatever its code, belongs to the 'sycl' category."""
    for code in sycl.errc:
        assert sycl.exception(code, "m").category() == "sycl"


def test_EX_10_empty_submit_does_not_raise(queue: sycl.queue) -> None:
    """An empty command group submits and completes."""
    queue.submit(lambda h: None).wait_and_throw()


def test_EX_12_host_task_error_is_asynchronous(device: sycl.device) -> None:
    """An exception escaping a host task reaches the async handler, not the submitter."""
    got: list[sycl.exception_list] = []
    q = sycl.queue(device, async_handler=got.append)
    q.submit(lambda h: h.host_task(_fail))
    q.wait_and_throw()
    assert [e.code() for e in got[0]] == [sycl.errc.kernel]


def test_EX_13_exception_list_is_a_class() -> None:
    """exception_list is a type that can be instantiated."""
    assert isinstance(sycl.exception_list, type)
    assert isinstance(sycl.exception_list(), sycl.exception_list)
