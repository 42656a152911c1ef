"""Category exceptions (CTS tests/exceptions, exception_handling, error): EX-01 .. EX-13."""

from __future__ import annotations

import pytest

import sycl_ocl as sycl

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


def test_EX_04_exception_list_default_is_empty() -> None:
    """A default exception_list is empty and iterable."""
    errors = sycl.exception_list()
    assert len(errors) == 0 and errors.size() == 0 and list(errors) == []


def test_EX_06_exception_is_an_exception() -> None:
    """sycl.exception derives from Exception and carries code and message."""
    error = sycl.exception(sycl.errc.invalid, "message")
    assert isinstance(error, Exception)
    assert error.code() is sycl.errc.invalid and error.what() == "message"
    assert not error.has_context()
    with pytest.raises(sycl.exception):
        error.get_context()


def test_EX_07_errc_values_unique() -> None:
    """errc has the 15 spec members with distinct values."""
    assert [e.name for e in sycl.errc] == ERRC_NAMES
    assert len({e.value for e in sycl.errc}) == len(ERRC_NAMES)


def test_EX_10_empty_submit_does_not_raise(queue: sycl.queue) -> None:
    """An empty command group submits and completes."""
    queue.submit(lambda h: None).wait_and_throw()


def test_EX_11_handler_not_called_on_success(device: sycl.device) -> None:
    """An async handler is not called when nothing failed."""
    calls: list[object] = []
    q = sycl.queue(device, async_handler=calls.append)
    q.submit(lambda h: h.host_task(lambda: None))
    q.wait_and_throw()
    assert calls == []


def test_EX_12_host_task_error_is_asynchronous(device: sycl.device) -> None:
    """An exception escaping a host task reaches the async handler, not the submitter."""
    got: list[sycl.exception_list] = []
    q = sycl.queue(device, async_handler=got.append)

    def fail() -> None:
        raise sycl.exception(sycl.errc.kernel, "host task failed")

    q.submit(lambda h: h.host_task(fail))
    q.wait_and_throw()
    assert [e.code() for e in got[0]] == [sycl.errc.kernel]
