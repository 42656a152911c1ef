"""Errors: ``sycl::exception``, ``sycl::errc`` and ``sycl::exception_list`` (SYCL 2020 §4.13)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._context import context


class errc(enum.Enum):
    """The SYCL error codes (§4.13.2)."""

    success = 0
    runtime = 1
    kernel = 2
    accessor = 3
    nd_range = 4
    event = 5
    kernel_argument = 6
    build = 7
    invalid = 8
    memory_allocation = 9
    platform = 10
    profiling = 11
    feature_not_supported = 12
    kernel_not_supported = 13
    backend_mismatch = 14


class exception(Exception):
    """The one exception type of SYCL (§4.13.2).

    Args:
        code: the ``errc`` member that names the failure.
        message: what went wrong and how to fix it.
        ctx: the context the failure belongs to, if any.
        cl_code: the OpenCL status code when the failure came from the driver.
    """

    def __init__(
        self,
        code: errc,
        message: str = "",
        ctx: context | None = None,
        cl_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self._code = code
        self._message = message
        self._context = ctx
        self.cl_code = cl_code

    def code(self) -> errc:
        """The error code (§4.13.2)."""
        return self._code

    def what(self) -> str:
        """The message (§4.13.2)."""
        return self._message

    def category(self) -> str:
        """The error category: always ``"sycl"`` (§4.13.2)."""
        return "sycl"

    def has_context(self) -> bool:
        """Whether a context is attached (§4.13.2)."""
        return self._context is not None

    def get_context(self) -> context:
        """The attached context; ``errc.invalid`` when there is none (§4.13.2)."""
        if self._context is None:
            raise exception(errc.invalid, "this exception has no context: check has_context() first")
        return self._context

    def __str__(self) -> str:
        return f"[{self._code.name}] {self._message}"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling (e.g. from a worker process) keeps the code; the context stays behind.
        return (exception, (self._code, self._message, None, self.cl_code))

    def __repr__(self) -> str:
        return f"sycl.exception(errc.{self._code.name}, {self._message!r})"


class exception_list:
    """The asynchronous errors handed to an ``async_handler`` (§4.13.1)."""

    def __init__(self, errors: Iterable[BaseException] = ()) -> None:
        self._errors = list(errors)

    def size(self) -> int:
        """How many errors the list holds (§4.13.1)."""
        return len(self._errors)

    def __len__(self) -> int:
        return len(self._errors)

    def __iter__(self) -> Iterator[BaseException]:
        return iter(self._errors)

    def __getitem__(self, index: int) -> BaseException:
        return self._errors[index]

    def __repr__(self) -> str:
        return f"sycl.exception_list({self._errors!r})"


async_handler = Callable[[exception_list], Any]
"""Any callable taking an ``exception_list`` (§4.13.1)."""
