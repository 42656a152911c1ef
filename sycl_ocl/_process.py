"""The process that owns sycl_ocl's OpenCL state: a child made by ``fork()`` refuses sycl_ocl
(docs/reliability.md, "Processes").

``fork()`` copies the memory of the process but only the thread that called it: the driver's
threads (PoCL runs commands on threads of its own), the scheduler's progress thread and its
pool of host threads do not exist in the child, and locks one of them held stay held. A
command there would never run, and re-initialising an OpenCL driver in a forked child is not
safe (a driver keeps state the child cannot rebuild). So once this process has opened OpenCL
(enumerated its platforms), every sycl_ocl call in a child made by ``fork()`` that would touch
that state (making a queue, a buffer or a USM allocation, submitting, waiting, a host
accessor) raises ``errc.runtime`` at once, naming fork and the cure: the ``spawn`` start
method. Objects inherited from the parent end silently in the child (no wait, no write-back:
their data is the parent's), and the child's exit waits for nothing.
"""

from __future__ import annotations

import os

from ._exception import errc, exception


class _State:
    """``opened``: this process enumerated OpenCL platforms; ``forked``: this process is a
    child made by ``fork()`` after that (or a child of such a child)."""

    __slots__ = ("forked", "opened")

    def __init__(self) -> None:
        self.opened = False
        self.forked = False


STATE = _State()


def opened() -> None:
    """Note that this process opened OpenCL (its platforms were enumerated)."""
    STATE.opened = True


def forked_error(what: str) -> exception:
    """The error of ``what`` (a sycl_ocl call) in a child made by ``fork()``."""
    return exception(
        errc.runtime,
        f"{what} in a process made by fork() from one that had opened OpenCL: the driver's "
        "threads and sycl_ocl's scheduler threads do not exist in a forked child, so its "
        "commands would never run, and OpenCL cannot be safely opened again after fork(). Start "
        "the worker processes with the 'spawn' start method (multiprocessing.get_context('spawn'), "
        "or ProcessPoolExecutor(mp_context=multiprocessing.get_context('spawn'))) and make the "
        "SYCL objects in the worker",
    )


def check(what: str) -> None:
    """Raise ``forked_error(what)`` in a child made by ``fork()`` after OpenCL was opened."""
    if STATE.forked:
        raise forked_error(what)


def _in_child() -> None:
    STATE.forked = STATE.opened


os.register_at_fork(after_in_child=_in_child)
